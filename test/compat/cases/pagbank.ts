import assert from 'node:assert/strict';
import type { GatewayId } from '../../../src/gateways/registry-ids';
import type { CompatCase, PairMethod } from '../pairs-types';

// PagBank-format clients (JSON POST /orders with Bearer, as pagbank.md section 2 shows), charged on each target.
// Amounts are integer cents, the real Orders API's unit: 19.99 reais is 1999. A card goes as raw card data (portable:
// an encrypted card only goes to PagBank, test/compat/pagbank-native.test.ts), pix as qr_codes[], boleto as a BOLETO
// charge. The Orders API has no customer resource: the buyer goes inline, so no customer is created first.

const ADDRESS = {
  street: 'Avenida Paulista', number: '100', complement: 'conj 12', locality: 'Bela Vista', city: 'Sao Paulo',
  region_code: 'SP', country: 'BRA', postal_code: '01310100',
};
const CUSTOMER = {
  name: 'Maria Souza', email: 'maria.souza@example.com', tax_id: '12345678909',
  phones: [{ country: '55', area: '11', number: '987654321', type: 'MOBILE' }],
};
const ITEMS = [{ reference_id: 'SKU-1', name: 'Camiseta', quantity: 1, unit_amount: 1999 }];
/** A boleto due in a week: Stripe registers boletos for at most 60 days, like the other gateways' short terms. */
const DUE = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
const ORDER = { reference_id: 'ord-1001', customer: CUSTOMER, items: ITEMS, shipping: { address: ADDRESS }, metadata: { order_id: '1001' } };

export const pagbankPayloads: Record<PairMethod, Record<string, unknown>> = {
  card: {
    ...ORDER,
    charges: [{
      reference_id: 'ord-1001-c1', description: 'Pedido 1001', amount: { value: 1999, currency: 'BRL' },
      payment_method: {
        type: 'CREDIT_CARD', installments: 1, capture: true, soft_descriptor: 'MINHALOJA',
        card: { number: '4242424242424242', exp_month: '12', exp_year: '2030', security_code: '123', holder: { name: 'MARIA SOUZA' } },
      },
    }],
  },
  pix: { ...ORDER, qr_codes: [{ amount: { value: 1999 } }] },
  boleto: {
    ...ORDER,
    charges: [{
      reference_id: 'ord-1001-c1', description: 'Pedido 1001', amount: { value: 1999, currency: 'BRL' },
      payment_method: {
        type: 'BOLETO',
        boleto: {
          due_date: DUE, instruction_lines: { line_1: 'Pagamento processado para DESC Fatura', line_2: 'Via PagBank' },
          holder: { name: 'Maria Souza', tax_id: '12345678909', email: 'maria.souza@example.com', address: { ...ADDRESS, region: 'Sao Paulo' } },
        },
      },
    }],
  },
};

type Order = Record<string, any>;

/** The order's charge as every native answer shows it: PagBank's own ids when PagBank holds it, else RouteGate's. */
function assertIds(order: Order, target: GatewayId, chargeId: string) {
  if (target === 'pagbank') {
    assert.match(order.id, /^ORDE_/);
    if (order.charges) assert.match(order.charges[0].id, /^CHAR_/);
  } else {
    assert.equal(order.id, chargeId, 'an order held elsewhere is named by RouteGate\'s id');
    if (order.charges) assert.equal(order.charges[0].id, chargeId);
  }
}

export const pagbankCase: CompatCase = {
  compat: 'pagbank',
  createPath: '/orders',
  retrievePath: (id) => `/orders/${id}`,
  headers: (key) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' }),
  encode: (body) => JSON.stringify(body),
  payloads: pagbankPayloads,
  createStatus: 201,
  idOf: (body) => (body as { id: string }).id,
  assertCreated(body, { method, target, chargeId }) {
    const order = body as Order;
    assertIds(order, target, chargeId);
    // PagBank's own body keeps RouteGate's charge id in reference_id (the reference RouteGate charges under);
    // a synthesized order echoes the client's.
    assert.equal(order.reference_id, target === 'pagbank' ? chargeId : 'ord-1001');
    assert.equal(order.customer.tax_id, '12345678909');
    assert.equal(order.items[0].unit_amount, 1999);
    assert.match(order.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)$/);
    if (method === 'pix') {
      // A pix is a QR code on the order; no charge until the payer pays it (pagbank.md section 2).
      assert.ok(!order.charges?.length, 'a pending pix has no charge');
      const qr = order.qr_codes[0];
      assert.equal(qr.amount.value, 1999, '19.99 reais as integer cents');
      assert.match(qr.text, /^000201/, 'the EMV copy-and-paste text');
      assert.deepEqual(qr.arrangements, ['PIX']);
      // The image as a link (PagBank, Stripe, Pagar.me) or inline as a data: URI where the gateway answers base64.
      assert.ok(qr.links.some((l: Order) => l.rel === 'QRCODE.PNG' && /^(https?:\/\/|data:image\/png;base64,)/.test(l.href)), 'the QR code image');
      assert.ok(!Number.isNaN(Date.parse(qr.expiration_date)));
      if (target === 'pagbank') assert.match(qr.id, /^QRCO_/);
      return;
    }
    const charge = order.charges[0];
    assert.equal(order.charges.length, 1);
    assert.equal(charge.reference_id, target === 'pagbank' ? chargeId : 'ord-1001-c1');
    assert.equal(charge.description, 'Pedido 1001');
    assert.equal(charge.amount.value, 1999, '19.99 reais as integer cents');
    assert.equal(charge.amount.currency, 'BRL');
    assert.equal(charge.amount.summary.total, 1999);
    assert.equal(charge.amount.summary.refunded, 0);
    assert.equal(charge.payment_response.code, '20000');
    if (method === 'card') {
      assert.equal(charge.status, 'PAID');
      assert.equal(charge.amount.summary.paid, 1999);
      assert.ok(charge.paid_at);
      const pm = charge.payment_method;
      assert.equal(pm.type, 'CREDIT_CARD');
      assert.equal(pm.installments, 1);
      assert.equal(pm.capture, true);
      assert.equal(pm.card.last_digits, '4242');
      assert.equal(pm.card.first_digits, '424242');
      assert.equal(pm.card.exp_month, '12');
      assert.equal(pm.card.exp_year, '2030');
      assert.equal(pm.card.holder.name, 'MARIA SOUZA');
      assert.equal(String(pm.card.brand).toLowerCase(), 'visa');
    } else {
      assert.equal(charge.status, 'WAITING');
      assert.equal(charge.amount.summary.paid, 0);
      const boleto = charge.payment_method.boleto;
      assert.equal(charge.payment_method.type, 'BOLETO');
      assert.match(boleto.barcode, /^\d{47}$/, 'the typeable line as digits');
      assert.equal(boleto.formatted_barcode.replace(/\D+/g, ''), boleto.barcode);
      assert.match(boleto.formatted_barcode, /^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
      assert.match(boleto.due_date, /^\d{4}-\d\d-\d\d$/);
      assert.ok(charge.links.some((l: Order) => l.media === 'application/pdf' && /^https?:\/\//.test(l.href)), 'the boleto PDF');
    }
  },
  assertRetrieved(body, created) {
    const [read, first] = [body as Order, created as Order];
    assert.equal(read.id, first.id);
    const value = read.charges?.[0]?.amount.value ?? read.qr_codes?.[0]?.amount.value;
    assert.equal(value, 1999);
    if (first.charges) assert.equal(read.charges[0].id, first.charges[0].id, 'the same charge id on a retrieve');
  },
};
