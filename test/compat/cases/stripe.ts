import assert from 'node:assert/strict';
import type { CompatCase } from '../pairs-types';

// Stripe-format clients (form-encoded PaymentIntents, as the Stripe SDKs send them), charged on each target.

const BILLING = {
  'payment_method_data[billing_details][name]': 'Maria Souza',
  'payment_method_data[billing_details][email]': 'maria.souza@example.com',
  'payment_method_data[billing_details][phone]': '+5511987654321',
  'payment_method_data[billing_details][address][line1]': 'Av Paulista, 100',
  'payment_method_data[billing_details][address][city]': 'Sao Paulo',
  'payment_method_data[billing_details][address][state]': 'SP',
  'payment_method_data[billing_details][address][postal_code]': '01310-100',
  'payment_method_data[billing_details][address][country]': 'BR',
};
const BASE = { amount: '1999', currency: 'brl', confirm: 'true', 'metadata[order_id]': '1001', 'expand[]': 'latest_charge' };

export const stripeCase: CompatCase = {
  compat: 'stripe',
  createPath: '/v1/payment_intents',
  retrievePath: (id) => `/v1/payment_intents/${id}`,
  headers: (key) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/x-www-form-urlencoded' }),
  encode: (body) => new URLSearchParams(body as Record<string, string>).toString(),
  payloads: {
    card: {
      ...BASE, 'payment_method_types[0]': 'card', 'payment_method_data[type]': 'card',
      'payment_method_data[card][number]': '4242424242424242', 'payment_method_data[card][exp_month]': '12',
      'payment_method_data[card][exp_year]': '2030', 'payment_method_data[card][cvc]': '123', ...BILLING,
    },
    pix: { ...BASE, 'payment_method_types[0]': 'pix', 'payment_method_data[type]': 'pix', 'payment_method_options[pix][expires_after_seconds]': '3600', ...BILLING, 'payment_method_data[boleto][tax_id]': '123.456.789-09' },
    boleto: { ...BASE, 'payment_method_types[0]': 'boleto', 'payment_method_data[type]': 'boleto', 'payment_method_data[boleto][tax_id]': '123.456.789-09', ...BILLING },
  },
  customer: {
    path: '/v1/customers',
    body: {
      name: 'Maria Souza', email: 'maria.souza@example.com', phone: '+5511987654321', 'tax_id_data[0][type]': 'br_cpf', 'tax_id_data[0][value]': '123.456.789-09',
      'address[line1]': 'Av Paulista, 100', 'address[city]': 'Sao Paulo', 'address[state]': 'SP', 'address[postal_code]': '01310-100', 'address[country]': 'BR',
    },
    attach: (payload, id) => ({ ...(payload as object), customer: id }),
  },
  createStatus: 200,
  idOf: (body) => (body as { id: string }).id,
  assertCreated(body, { method, target, chargeId }) {
    const pi = body as Record<string, any>;
    assert.equal(pi.object, 'payment_intent');
    // 19.99 reais: 1999 cents in, 1999 (Stripe's unit is cents) out, whichever gateway charged it.
    assert.equal(pi.amount, 1999);
    assert.equal(pi.currency, 'brl');
    assert.equal(pi.metadata.order_id, '1001');
    if (target === 'stripe') assert.match(pi.id, /^pi_/);
    else assert.equal(pi.id, chargeId, 'a charge held elsewhere is named by RouteGate\'s id');
    if (method === 'card') {
      assert.equal(pi.status, 'succeeded');
      assert.equal(pi.amount_received, 1999);
      assert.ok(pi.latest_charge, 'the card charge is there');
    } else if (method === 'pix') {
      assert.equal(pi.status, 'requires_action');
      assert.equal(pi.amount_received, 0);
      assert.equal(pi.next_action.type, 'pix_display_qr_code');
      assert.match(pi.next_action.pix_display_qr_code.data, /^000201/, 'the EMV copy-and-paste text');
      assert.equal(typeof pi.next_action.pix_display_qr_code.expires_at, 'number');
    } else {
      assert.equal(pi.status, 'requires_action');
      assert.equal(pi.next_action.type, 'boleto_display_details');
      assert.match(pi.next_action.boleto_display_details.number, /^\d{47}$/, 'the typeable line');
      assert.ok(pi.next_action.boleto_display_details.hosted_voucher_url);
    }
  },
  assertRetrieved(body, created) {
    assert.equal((body as { id: string }).id, (created as { id: string }).id);
    assert.equal((body as { amount: number }).amount, 1999);
  },
};
