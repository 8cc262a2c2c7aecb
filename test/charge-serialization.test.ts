import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { registerSchemas } from '../src/http/schemas';
import { chargeView, shapeCharge, type ResponseFormat } from '../src/charges/response-format';
import { patchFromGateway } from '../src/charges/charge-writes';
import type { AttemptRecord, ChargeRecord } from '../src/store/charges';
import type { NormalizedChargeResult, RefundResult } from '../src/gateways/types';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { MAPPINGS_DIR } from '../src/lib/paths';
import { withGatewayResponse } from '../src/charges/routes';
import { startE2E, CUSTOMER } from './helpers/e2e';

// Charge answers go through fast-json-stringify (schemas/charge.json). It writes declared fields in the schema's
// order and coerces a value to its declared type, so a schema out of step with response-format.ts would silently
// reorder or change what clients get. Here every shape a charge answer takes is serialized both ways and must
// come out byte for byte as JSON.stringify writes it.

const BASE: ChargeRecord = {
  id: 'chg_0123456789abcdef0123456789abcdef', accountId: 'acc_1', gateway: 'pagarme', primaryGateway: 'pagarme', fallbackUsed: false,
  externalId: null, paymentMethod: 'credit_card', status: 'processing', amount: 1999, paidAmount: 0, refundedAmount: 0, currency: 'BRL',
  captured: null, description: null, customerId: null, refs: null, pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null,
  declineCode: null, errorCode: null, errorMessage: null, createdAt: '2026-11-26T12:00:00.000Z', updatedAt: '2026-11-26T12:00:01.000Z',
};

const ATTEMPTS: AttemptRecord[] = [
  { seq: 1, operation: 'charge', gateway: 'stripe', outcome: 'skipped', errorCode: 'MISSING_CREDENTIALS', failureKind: null, gatewayStatus: null, message: 'no stripe credentials', ambiguous: false, durationMs: 0, createdAt: BASE.createdAt },
  { seq: 2, operation: 'charge', gateway: 'pagarme', outcome: 'failed', errorCode: 'GATEWAY_TIMEOUT', failureKind: 'timeout', gatewayStatus: null, message: 'pagarme did not answer "in time"\n', ambiguous: true, durationMs: 30001, createdAt: BASE.createdAt },
  { seq: 3, operation: 'charge', gateway: 'asaas', outcome: 'success', errorCode: null, failureKind: null, gatewayStatus: 200, message: null, ambiguous: false, durationMs: 12.5, createdAt: BASE.createdAt },
  { seq: 4, operation: 'refund', gateway: 'asaas', outcome: 'success', errorCode: null, failureKind: null, gatewayStatus: null, message: null, ambiguous: false, durationMs: 40, externalId: 're_1', amount: 500, createdAt: BASE.createdAt },
];

/** Stored charges as the orchestrator leaves them: every gateway's charge.response fixture applied, plus edge cases. */
function records(): Array<{ record: ChargeRecord; raw?: unknown }> {
  const out: Array<{ record: ChargeRecord; raw?: unknown }> = [
    { record: BASE },
    { record: { ...BASE, gateway: null, primaryGateway: null } },
    {
      record: {
        ...BASE, status: 'declined', externalId: 'ch_1', declineCode: 'insufficient_funds', description: 'Pedido "42" – café', customerId: 'cus_1',
        fallbackUsed: true, gateway: 'asaas', metadata: { order: '42', note: 'a\\b' }, captured: false,
        split: [{ type: 'percentage', recipient_id: 're_1', percentage: 30, amount: 599, chargeProcessingFee: true, liable: true }],
      },
    },
    {
      record: {
        ...BASE, paymentMethod: 'pix', status: 'pending', externalId: 'px_1', pixQrCode: 'data:image/png;base64,AAAA', pixCopyPaste: '000201...6304ABCD',
        pixExpiresAt: '2026-11-27T12:00:00.000Z', card: { brand: 'visa' },
      },
    },
    {
      record: {
        ...BASE, paymentMethod: 'boleto', status: 'pending', externalId: 'bo_1', boletoUrl: 'https://example.com/b', boletoBarcode: '1'.repeat(47),
        boletoBarcodeNumber: '2'.repeat(44), boletoDueDate: '2026-12-01',
      },
    },
  ];
  for (const gateway of GATEWAY_IDS) {
    const dir = path.join(MAPPINGS_DIR, gateway, 'fixtures', 'charge.response');
    if (!fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const fixture = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { input: { response?: unknown }; expected?: NormalizedChargeResult };
      if (!fixture.expected || typeof fixture.expected !== 'object') continue;
      const base = { ...BASE, gateway, primaryGateway: gateway, paymentMethod: fixture.expected.paymentMethod ?? BASE.paymentMethod };
      out.push({ record: { ...base, ...patchFromGateway(base, fixture.expected) } as ChargeRecord, raw: fixture.input.response });
    }
  }
  return out;
}

const REFUNDS: Array<RefundResult | undefined> = [undefined, { refundId: 're_9', amount: 500, status: 'succeeded', gatewayStatus: 'REFUNDED' }, { refundId: undefined, amount: undefined, status: undefined, gatewayStatus: undefined }];

/** Every answer body a charge route sends through the charge schema. */
function chargeBodies(): unknown[] {
  const bodies: unknown[] = [];
  for (const { record, raw } of records()) {
    for (const format of ['normalized', 'full'] as ResponseFormat[]) {
      for (const refund of REFUNDS) bodies.push({ success: true, data: shapeCharge(format, record, raw, refund) });
    }
    bodies.push({ success: true, data: { ...chargeView(record), attempts: ATTEMPTS } });
    bodies.push({ success: true, data: { ...chargeView(record), attempts: [] } });
  }
  return bodies;
}

async function serializer(schemaId: string) {
  const app = Fastify();
  registerSchemas(app);
  let next: unknown;
  app.get('/', { schema: { response: { 200: { $ref: `${schemaId}#` } } } }, async () => next);
  await app.ready();
  return {
    serialize: async (body: unknown) => {
      next = body;
      return (await app.inject({ method: 'GET', url: '/' })).body;
    },
    close: () => app.close(),
  };
}

test('every charge answer is serialized exactly as JSON.stringify writes it (fields, order, types, escapes)', async () => {
  const { serialize, close } = await serializer('charge-response');
  try {
    const bodies = chargeBodies();
    assert.ok(bodies.length > 100, `only ${bodies.length} shapes`);
    for (const body of bodies) assert.equal(await serialize(body), JSON.stringify(body));
  } finally {
    await close();
  }
});

test("a full answer with the gateway's text spliced in is the answer with its parsed body serialized: same bytes for compact text", async () => {
  const { serialize, close } = await serializer('charge-response');
  try {
    let spliced = 0;
    for (const { record, raw } of records()) {
      if (raw === undefined) continue;
      for (const refund of REFUNDS) {
        const whole: unknown = { success: true, data: shapeCharge('full', record, raw, refund) };
        const envelope = await serialize({ success: true, data: shapeCharge('full', record, undefined, refund) });
        assert.equal(withGatewayResponse(envelope, JSON.stringify(raw)), JSON.stringify(whole));
        // A gateway that indents its body or ends it with a newline: kept as sent, the same JSON.
        const pretty = withGatewayResponse(envelope, `${JSON.stringify(raw, null, 2)}\n`);
        assert.deepEqual(JSON.parse(pretty), JSON.parse(JSON.stringify(whole)));
        spliced++;
      }
    }
    assert.ok(spliced > 30, `only ${spliced} answers`);
    assert.equal(withGatewayResponse('{"success":true,"data":{}}', '{"id":1}'), '{"success":true,"data":{"gatewayResponse":{"id":1}}}');
    assert.throws(() => withGatewayResponse('{"success":true,"data":[]}', '{}'), /ends with its data object/);
  } finally {
    await close();
  }
});

test('a page of charges is serialized exactly as JSON.stringify writes it, last page (null cursor) included', async () => {
  const { serialize, close } = await serializer('charge-list-response');
  try {
    const views = records().map(({ record }) => chargeView(record));
    for (const body of [
      { success: true, data: views, pagination: { limit: views.length, nextCursor: 'eyJjIjoiMjAyNi0xMS0yNiJ9' } },
      { success: true, data: views.slice(0, 1), pagination: { limit: 20, nextCursor: null } },
      { success: true, data: [], pagination: { limit: 20, nextCursor: null } },
    ]) assert.equal(await serialize(body), JSON.stringify(body));
  } finally {
    await close();
  }
});

test('responseFormat raw answers the gateway body as received, not reshaped by the normalized charge schema', async () => {
  const e2e = await startE2E();
  try {
    // Mercado Pago's payment id is a number; the charge schema's `id` is a string.
    const key = await e2e.account({ primaryGateway: 'mercadopago', gatewayFallbacks: [], responseFormat: 'raw' });
    const raw = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER } });
    assert.equal(raw.status, 201, raw.text);
    assert.equal(typeof raw.body.data.id, 'number', raw.text.slice(0, 200));
    assert.equal(raw.text, JSON.stringify(raw.body), 'written in the gateway\'s own field order');
    await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { responseFormat: 'full' } });
    const full = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'pix', amount: 1999, customer: CUSTOMER } });
    assert.equal(full.status, 201, full.text);
    assert.equal(typeof full.body.data.gatewayResponse.id, 'number');
    assert.equal(full.text, JSON.stringify(full.body));
    const read = await e2e.call('GET', `/api/v1/charges/${full.body.data.id}`, { key });
    assert.equal(read.text, JSON.stringify(read.body));
    assert.equal(read.body.data.attempts.length, 1);
    const list = await e2e.call('GET', '/api/v1/charges?limit=1', { key });
    assert.equal(list.text, JSON.stringify(list.body));
    assert.equal(typeof list.body.pagination.nextCursor, 'string');
  } finally {
    await e2e.close();
  }
});
