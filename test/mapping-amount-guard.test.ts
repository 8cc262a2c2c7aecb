import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startE2E, CUSTOMER, CARD, type E2E } from './helpers/e2e';
import { expectError } from './helper';
import { CREATE_PATH } from './helpers/charge-inputs';
import { copyMappings, editToWrongUnit, WRONG_FIELD } from './helpers/wrong-unit';
import { GATEWAY_IDS, type GatewayId } from '../src/gateways/registry-ids';
import { GATEWAYS } from '../src/gateways/registry';
import { guardRendered, MappingAmountError } from '../src/mapping/amount-guard';
import { ROOT } from '../src/lib/paths';
import http from 'node:http';
import { request as undiciRequest } from 'undici';

// Issue 41, item 1: a wrong money unit is never sent, whatever the mapping files and their fixtures say.

const GATEWAYS_UNDER_TEST = [...GATEWAY_IDS] as GatewayId[];

describe('a charge.request edited to the wrong unit, fixtures agreeing', () => {
  let e2e: E2E;
  let cleanup: () => void;
  let maps: string;
  before(async () => {
    const copy = copyMappings();
    cleanup = copy.cleanup;
    maps = copy.maps;
    await editToWrongUnit(maps, GATEWAYS_UNDER_TEST);
    e2e = await startE2E({ ROUTEGATE_MAPPINGS_DIR: maps });
  });
  after(async () => {
    await e2e.close();
    cleanup();
  });

  for (const gateway of GATEWAYS_UNDER_TEST) {
    test(`${gateway}: the service refuses with MAPPING_AMOUNT_MISMATCH before any create reaches the gateway`, async () => {
      await e2e.control.reset();
      const key = await e2e.account({ primaryGateway: gateway, gatewayFallbacks: [] });
      let customerId: string | undefined;
      if (gateway === 'asaas') customerId = (await e2e.call('POST', '/api/v1/customers', { key, body: { ...CUSTOMER, gateway: 'asaas' } })).body.data.externalId;
      const body = { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD, ...(customerId ? { customerId } : {}) };
      const res = await e2e.call('POST', '/api/v1/charges', { key, body });
      expectError(res, 'MAPPING_AMOUNT_MISMATCH', 500);
      assert.match(res.body.error.message, new RegExp(`${gateway}/charge\\.request`));
      assert.match(res.body.error.message, WRONG_FIELD[gateway]);
      assert.match(res.body.error.message, /1999 cents/);
      assert.match(res.body.error.message, /nothing was sent/);
      const creates = (await e2e.control.requests(gateway)).filter((r) => r.method === 'POST' && r.path.split('?')[0] === CREATE_PATH[gateway]);
      assert.deepEqual(creates, [], 'no create call reached the gateway');
      assert.deepEqual(await e2e.control.ledger(gateway), [], 'nothing charged');
      // The stored charge and its attempt say why.
      const [listed] = (await e2e.call('GET', '/api/v1/charges?limit=1', { key })).body.data;
      const stored = await e2e.call('GET', `/api/v1/charges/${listed.id}`, { key });
      assert.equal(stored.body.data.status, 'failed');
      assert.equal(stored.body.data.errorCode ?? stored.body.data.error?.code ?? 'MAPPING_AMOUNT_MISMATCH', 'MAPPING_AMOUNT_MISMATCH');
      const attempt = stored.body.data.attempts.find((a: { operation: string }) => a.operation === 'charge');
      assert.equal(attempt.errorCode, 'MAPPING_AMOUNT_MISMATCH');
      assert.match(attempt.message, /charge\.request/);
    });
  }

  test('mappings check fails on every edited gateway, naming the mapping, the field, expected and rendered', () => {
    const res = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), 'mappings', 'check'], {
      env: { PATH: process.env.PATH ?? '', ROUTEGATE_MAPPINGS_DIR: maps }, encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(res.status, 1, res.stdout);
    for (const gateway of GATEWAYS_UNDER_TEST) {
      assert.match(res.stdout, new RegExp(`FAIL ${gateway}/fixtures/charge\\.request/.*\\n\\s+MAPPING_AMOUNT_MISMATCH ${gateway}/charge\\.request: `), gateway);
    }
    assert.match(res.stdout, /expected 19\.99[^\n]*rendered 1999|expected 1999[^\n]*rendered 19\.99/);
  });

  test('start-up refuses the folder (no override), naming the guard', () => {
    const res = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], {
      env: { PATH: process.env.PATH ?? '', ROUTEGATE_MAPPINGS_DIR: maps, ROUTEGATE_DB: path.join(path.dirname(maps), 'rg.db'), ROUTEGATE_MASTER_KEY: 'a'.repeat(64), PORT: '0', HOST: '127.0.0.1' },
      encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(res.status, 1, res.stderr);
    assert.match(res.stderr, /refusing to start/);
    assert.match(res.stderr, /MAPPING_AMOUNT_MISMATCH pagarme\/charge\.request/);
  });
});

test('every registered gateway declares the amounts of each money request it ships', () => {
  for (const g of GATEWAYS) {
    assert.ok(g.amounts.requests['charge.request'], `${g.id} declares charge.request`);
    for (const name of ['capture.request', 'refund.request', 'cancel.request']) {
      if (fs.existsSync(path.join(ROOT, 'mappings', g.id, `${name}.jsonata`))) assert.ok(g.amounts.requests[name], `${g.id} declares ${name}`);
    }
    assert.ok(g.amounts.answer.fields.length > 0, `${g.id} says where its answer reports the amount`);
  }
});

test('the guard: a missing amount, one where none is due, a string, and an unbound unit are all refused', () => {
  const decl = GATEWAYS.find((g) => g.id === 'pagbank')!.amounts;
  const input = { charge: { amount: 1999 } };
  assert.throws(() => guardRendered('pagbank', decl, 'charge.request', input, { amountUnit: 'minor' }, { items: [{ unit_amount: 19.99 }] }), MappingAmountError);
  assert.doesNotThrow(() => guardRendered('pagbank', decl, 'charge.request', input, { amountUnit: 'major' }, { items: [{ unit_amount: 19.99 }], qr_codes: [{ amount: { value: 19.99 } }] }));
  assert.throws(() => guardRendered('pagbank', decl, 'charge.request', input, {}, { items: [{ unit_amount: 1999 }] }), /not bound/);
  assert.throws(() => guardRendered('pagbank', decl, 'charge.request', input, { amountUnit: 'minor' }, { reference_id: 'x' }), /is missing/);
  const stripe = GATEWAYS.find((g) => g.id === 'stripe')!.amounts;
  assert.throws(() => guardRendered('stripe', stripe, 'charge.request', input, {}, { amount: '1999' }), MappingAmountError);
  assert.throws(() => guardRendered('stripe', stripe, 'capture.request', { amount: null }, {}, { amount_to_capture: 1999 }), /names none/);
  assert.doesNotThrow(() => guardRendered('stripe', stripe, 'capture.request', { amount: null }, {}, { expand: ['latest_charge'] }));
  assert.throws(() => guardRendered('stripe', stripe, 'refund.request', { amount: 500 }, {}, { amount: 5 }), /expected 500, rendered 5/);
});

describe('a gateway that takes another amount than asked', () => {
  let e2e: E2E;
  let proxy: http.Server;
  let proxyUrl: string;
  before(async () => {
    e2e = await startE2E();
    // In front of the Pagar.me emulator: passes every call on, and rewrites the create's answer to report 20 cents.
    const target = e2e.sandbox.app.config.gatewayUrls.pagarme;
    const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = { ...req.headers };
      delete headers.host;
      delete headers['content-length'];
      const answer = await undiciRequest(target + req.url, { method: req.method as 'POST', headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      let text = await answer.body.text();
      const misreport = (order: { amount?: number; charges?: Array<{ amount?: number }> }) => {
        order.amount = 20;
        for (const c of order.charges ?? []) c.amount = 20;
      };
      if (req.method === 'POST' && req.url === '/core/v5/orders' && answer.statusCode < 300) {
        const order = JSON.parse(text);
        misreport(order);
        text = JSON.stringify(order);
      }
      // The lookup by reference, after a lost answer, reports the same.
      if (req.method === 'GET' && req.url?.startsWith('/core/v5/orders?code=') && answer.statusCode < 300) {
        const list = JSON.parse(text) as { data?: Array<{ amount?: number }> };
        for (const o of list.data ?? []) misreport(o);
        text = JSON.stringify(list);
      }
      res.writeHead(answer.statusCode, { 'content-type': 'application/json' }).end(text);
    };
    proxy = http.createServer((req, res) => {
      handle(req, res).catch((err: Error) => res.destroy(err));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  });
  after(async () => {
    await new Promise((resolve) => proxy.close(resolve));
    await e2e.close();
  });

  test('pagarme reports 20 cents for a 1999 charge: the attempt is flagged and the charge is not approved', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    const res = await e2e.withGatewayUrl('pagarme', proxyUrl, () => e2e.call('POST', '/api/v1/charges', {
      key, body: { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD },
    }));
    assert.notEqual(res.status, 201, res.text);
    expectError(res, 'GATEWAY_ERROR', 502);
    assert.match(res.body.error.message, /pagarme reports 20 cents on or_\w+ where RouteGate asked for 1999 cents/);
    const [listed] = (await e2e.call('GET', '/api/v1/charges?limit=1', { key })).body.data;
    const stored = await e2e.call('GET', `/api/v1/charges/${listed.id}`, { key });
    assert.notEqual(stored.body.data.status, 'approved');
    const attempt = stored.body.data.attempts.find((a: { operation: string }) => a.operation === 'charge');
    assert.equal(attempt.outcome, 'failed');
    assert.match(attempt.message, /reports 20 cents/);
    // The payment the gateway took anyway is the charge's orphan: recorded, and refunded under the default policy.
    const operations = stored.body.data.attempts.map((a: { operation: string; outcome: string }) => `${a.operation}:${a.outcome}`);
    assert.ok(operations.includes('orphan:success'), operations.join(', '));
    assert.ok(operations.includes('orphan_refund:success'), operations.join(', '));
    const [atPagarme] = (await e2e.control.ledger('pagarme')).filter((c) => c.reference === listed.id);
    assert.equal(atPagarme.refundedAmount, atPagarme.paidAmount, 'nothing is left taken at the gateway');
  });

  test('the answer lost, the lookup finds 20 cents for a 1999 charge: failed, never approved, the payment undone as an orphan', async () => {
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    await e2e.control.fault('pagarme', 'lose', { count: 2, method: 'POST', path: '/core/v5/orders' });
    const res = await e2e.withGatewayUrl('pagarme', proxyUrl, () => e2e.call('POST', '/api/v1/charges', {
      key, body: { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD },
    }));
    await e2e.control.clearFaults();
    expectError(res, 'GATEWAY_ERROR', 502);
    assert.match(res.body.error.message, /pagarme reports 20 cents on or_\w+ where RouteGate asked for 1999 cents/);
    const id = res.headers['x-rg-charge-id'] as string;
    const stored = (await e2e.call('GET', `/api/v1/charges/${id}`, { key })).body.data;
    assert.equal(stored.status, 'failed');
    const operations = stored.attempts.map((a: { operation: string; outcome: string }) => `${a.operation}:${a.outcome}`);
    assert.ok(operations.includes('orphan_refund:success'), operations.join(', '));
    const [atPagarme] = (await e2e.control.ledger('pagarme')).filter((c) => c.reference === id);
    assert.equal(atPagarme.refundedAmount, atPagarme.paidAmount, 'nothing is left taken at the gateway');
  });
});

test('a refund.request edited to the wrong unit: the refund is refused before any refund call, the charge stays approved', async (t) => {
  const { maps, cleanup } = copyMappings();
  t.after(cleanup);
  // Mercado Pago wants reais; the edit sends cents (its fixtures would be edited to agree: the guard ignores them).
  const file = path.join(maps, 'mercadopago', 'refund.request.jsonata');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("{'amount': $toMajor(amount)}", "{'amount': amount}"));
  const e2e = await startE2E({ ROUTEGATE_MAPPINGS_DIR: maps });
  t.after(() => e2e.close());
  const key = await e2e.account({ primaryGateway: 'mercadopago', gatewayFallbacks: [] });
  const created = await e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD } });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id;
  const res = await e2e.call('POST', `/api/v1/charges/${id}/refunds`, { key, body: { amount: 500 } });
  expectError(res, 'MAPPING_AMOUNT_MISMATCH', 500);
  assert.match(res.body.error.message, /mercadopago\/refund\.request renders amount = 500, expected 5 \(the refund amount of 500 cents, sent in reais\)/);
  assert.deepEqual((await e2e.control.requests('mercadopago')).filter((r) => /\/refunds/.test(r.path)), [], 'no refund call');
  const stored = await e2e.call('GET', `/api/v1/charges/${id}`, { key });
  assert.equal(stored.body.data.status, 'approved');
  assert.equal(stored.body.data.refundedAmount, 0);
});

test('split shares: each rendered share must be one RouteGate computed, in the gateway\'s unit', () => {
  const decl = (id: string) => GATEWAYS.find((g) => g.id === id)!.amounts;
  const split = { items: [{ recipientId: 'r1', amount: 600 }], remainder: 1399, ownRecipientId: 'own' };
  const input = { charge: { amount: 1999, resolvedSplit: split } };
  assert.doesNotThrow(() => guardRendered('asaas', decl('asaas'), 'charge.request', input, {}, { value: 19.99, split: [{ fixedValue: 6 }] }));
  assert.throws(() => guardRendered('asaas', decl('asaas'), 'charge.request', input, {}, { value: 19.99, split: [{ fixedValue: 600 }] }), /split\[\*\]\.fixedValue is not one of the split shares/);
  assert.doesNotThrow(() => guardRendered('stripe', decl('stripe'), 'charge.request', input, {}, { amount: 1999, application_fee_amount: 1399 }));
  assert.throws(() => guardRendered('stripe', decl('stripe'), 'charge.request', input, {}, { amount: 1999, application_fee_amount: 13.99 }), /application_fee_amount/);
  assert.throws(() => guardRendered('stripe', decl('stripe'), 'charge.request', { charge: { amount: 1999 } }, {}, { amount: 1999, application_fee_amount: 100 }), /application_fee_amount/, 'no split, no fee');
  const receivers = (a: number, b: number) => ({ charges: [{ amount: { value: 1999 }, splits: { receivers: [{ amount: { value: a } }, { amount: { value: b } }] } }], items: [{ unit_amount: 1999 }] });
  assert.doesNotThrow(() => guardRendered('pagbank', decl('pagbank'), 'charge.request', input, { amountUnit: 'minor' }, receivers(1399, 600)));
  assert.throws(() => guardRendered('pagbank', decl('pagbank'), 'charge.request', input, { amountUnit: 'minor' }, receivers(13.99, 6)), /receivers\[\*\]\.amount\.value/);
});
