import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, type E2E } from '../helpers/e2e';
import { GATEWAY_IDS, type GatewayId } from '../../src/gateways/registry-ids';
import type { RecordedRequest } from '../../src/sandbox/control';
import type { CompatCase, PairMethod } from './pairs-types';
import { stripeCase } from './cases/stripe';
import { pagarmeCase } from './cases/pagarme';
import { asaasCase } from './cases/asaas';
import { mercadopagoCase } from './cases/mercadopago';
import { pagbankCase } from './cases/pagbank';

// Issue 11: every compat gateway x every target gateway. A native payload in (the compat gateway's own create, at
// its native path), charged on the target emulator (19.99 reais in the target's own unit on the wire, 1999 cents in
// its ledger), and the native response out, checked field by field by the compat gateway's case file.
// Case files: test/compat/cases/<compat id>.ts, one per gateway with a compatibility surface.

const CASES: CompatCase[] = [stripeCase, pagarmeCase, asaasCase, mercadopagoCase, pagbankCase];

/** What the target's create call carried, in the target's own unit (its gateway API notes). */
const WIRE_AMOUNT: Record<GatewayId, { create: RegExp; amount(body: any): unknown; expected: unknown }> = {
  stripe: { create: /^\/v1\/payment_intents(\?|$)/, amount: (b) => b.amount, expected: '1999' },
  pagarme: { create: /^\/core\/v5\/orders(\?|$)/, amount: (b) => b.items?.[0]?.amount ?? b.payments?.[0]?.amount, expected: 1999 },
  asaas: { create: /^\/v3\/payments(\?|$)/, amount: (b) => b.value, expected: 19.99 },
  mercadopago: { create: /^\/v1\/payments(\?|$)/, amount: (b) => b.transaction_amount, expected: 19.99 },
  pagbank: { create: /^\/orders(\?|$)/, amount: (b) => b.charges?.[0]?.amount?.value ?? b.qr_codes?.[0]?.amount?.value, expected: 1999 },
};

/**
 * Pairs a target's real API refuses for a native payload, each with why: the client gets a native error and nothing
 * reaches the target. Every other pair must be charged.
 */
const REFUSED: Partial<Record<`${string}/${GatewayId}/${PairMethod}`, string>> = {
  'stripe/mercadopago/boleto': 'a Stripe billing address has no district (bairro), which Mercado Pago requires on a boleto',
  'stripe/pagbank/boleto': 'a Stripe billing address has no district (bairro), which PagBank requires on a boleto',
  'mercadopago/stripe/card': 'a Mercado Pago card is always a Mercado Pago card token (POST /v1/card_tokens), which only Mercado Pago can charge',
  'mercadopago/pagarme/card': 'a Mercado Pago card is always a Mercado Pago card token (POST /v1/card_tokens), which only Mercado Pago can charge',
  'mercadopago/asaas/card': 'a Mercado Pago card is always a Mercado Pago card token (POST /v1/card_tokens), which only Mercado Pago can charge',
  'mercadopago/pagbank/card': 'a Mercado Pago card is always a Mercado Pago card token (POST /v1/card_tokens), which only Mercado Pago can charge',
};

let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

async function creates(target: GatewayId): Promise<RecordedRequest[]> {
  return (await e2e.control.requests(target)).filter((r) => r.method === 'POST' && WIRE_AMOUNT[target].create.test(r.path));
}

for (const c of CASES) {
  for (const target of GATEWAY_IDS) {
    for (const method of Object.keys(c.payloads) as PairMethod[]) {
      const refused = REFUSED[`${c.compat}/${target}/${method}`];
      test(`${c.compat} client, ${method}, charged on ${target}${refused ? ` (refused: ${refused})` : ''}`, async () => {
        // A refused pair runs on an account holding the target's credentials only: the refusal is the target's (a native
        // token would otherwise be charged at its own gateway, which compatibility mode tries when it can).
        const key = await e2e.account({ primaryGateway: target, gatewayFallbacks: [], compatibilityMode: c.compat }, refused ? [target] : undefined);
        // (A refused pair sends its payer inline: with the target's credentials alone a customer may have nowhere to live.)
        let payload = c.payloads[method];
        if (!refused && c.customer) {
          const customer = await e2e.call('POST', c.customer.path, { rawBody: c.encode(c.customer.body), headers: c.headers(key) });
          assert.equal(customer.status, c.createStatus, customer.text.slice(0, 300));
          payload = c.customer.attach(payload, c.idOf(customer.body));
        }
        const before = (await creates(target)).length;
        const res = await e2e.call('POST', c.createPath, { rawBody: c.encode(payload), headers: c.headers(key) });
        if (refused) {
          assert.ok(res.status >= 400 && res.status < 500, `${res.status} ${res.text.slice(0, 300)}`);
          assert.ok(res.headers['x-rg-error-code'], 'a native error names the RouteGate code');
          assert.equal((await creates(target)).length, before, 'nothing reached the target');
          c.assertRefused?.(res.body, { method, target, status: res.status });
          return;
        }
        assert.equal(res.status, c.createStatus, res.text.slice(0, 500));
        assert.equal(res.headers['x-rg-gateway'], target);
        assert.equal(res.headers['x-rg-fallback-used'], 'false');
        const chargeId = String(res.headers['x-rg-charge-id']);
        assert.match(chargeId, /^chg_/);
        const sent = (await creates(target)).slice(before);
        assert.equal(sent.length, 1, `one create reached ${target}`);
        assert.equal(WIRE_AMOUNT[target].amount(sent[0].body), WIRE_AMOUNT[target].expected, `${target} was asked for 19.99 reais in its own unit`);
        const stored = (await e2e.call('GET', `/api/v1/charges/${chargeId}`, { key, headers: { 'x-payload-format': 'native' } })).body.data;
        const ledger = (await e2e.control.ledger(target)).find((l) => l.id === stored.externalId);
        assert.equal(ledger?.amount, 1999, `${target}'s ledger holds 1999 cents`);
        c.assertCreated(res.body, { method, target, chargeId });
        // Every id RouteGate answered works on the native follow-up path, root and /compat prefix alike.
        const id = c.idOf(res.body);
        for (const prefix of ['', `/compat/${c.compat}`]) {
          const read = await e2e.call('GET', `${prefix}${c.retrievePath(id)}`, { headers: c.headers(key) });
          assert.equal(read.status, 200, read.text.slice(0, 300));
          c.assertRetrieved(read.body, res.body);
        }
      });
    }
  }
}
