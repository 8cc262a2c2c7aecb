import assert from 'node:assert/strict';
import type { E2E } from '../helpers/e2e';
import type { ApiDescription } from '../helpers/api-descriptions';
import type { GatewayId } from '../../src/gateways/registry-ids';
import type { RecordedRequest } from '../../src/sandbox/control';
import type { PaymentMethod } from '../../src/gateways/types';
import type { CompatCase, PairMethod } from '../compat/pairs-types';
import { chargeableMethods, chargeRecipe, gateways, isCard, prepareCharge, supported } from './matrix';

// Shared by test/conformance/<gateway>-wire.test.ts: RouteGate's wire to a gateway and its compatibility-mode answers,
// judged by the gateway's own API description (test/conformance/descriptions/<gateway>/, SOURCES.md there).

/** Which schema of the description a request RouteGate sends must satisfy; `schema: null` = a request without a body. */
export interface RequestRule {
  method: string;
  path: RegExp;
  schema: string | null;
}

/**
 * A place where the description is stricter (or narrower) than the live API, with the evidence: problems of `schema`
 * whose instance path matches `path` (the whole path, e.g. /^\/items\/\d+$/) and whose text contains `message` are
 * not counted. Each one is listed in docs/sdk-notes.md.
 */
export interface KnownException {
  schema: string;
  path: RegExp;
  message: string;
  evidence: string;
  /** Only for a value this holds of (e.g. the one status the description's enum lacks). */
  when?(value: unknown): boolean;
}

/** The description's problems with `value` against `schema`, less the known exceptions. */
export function conformance(description: ApiDescription, schema: string, value: unknown, exceptions: readonly KnownException[]): string[] {
  return description.problems(schema, value).filter((problem) => !exceptions.some((e) => e.schema === schema && (!e.when || e.when(value))
    && e.path.test(problem.slice(0, problem.indexOf(' '))) && problem.includes(e.message)));
}

/** Fields the description marks required that the live API does not require (one exception per field). */
export function optionalInFact(schema: string, path: RegExp, fields: readonly string[], evidence: string): KnownException[] {
  return fields.map((field) => ({ schema, path, message: `"missingProperty":"${field}"`, evidence }));
}

/** Every request with a body that RouteGate sent (as the emulator recorded it) checked against its rule's schema. */
export function checkRequests(description: ApiDescription, requests: readonly RecordedRequest[], rules: readonly RequestRule[], exceptions: readonly KnownException[]): string[] {
  const out: string[] = [];
  for (const r of requests) {
    const path = r.path.split('?')[0];
    const rule = rules.find((x) => x.method === r.method && x.path.test(path));
    if (!rule) {
      out.push(`${r.method} ${path}: no rule names the schema of this request`);
      continue;
    }
    if (rule.schema === null) {
      if (r.body !== undefined && r.body !== null && !(typeof r.body === 'object' && Object.keys(r.body as object).length === 0)) {
        out.push(`${r.method} ${path}: sent a body where the API takes none`);
      }
      continue;
    }
    for (const problem of conformance(description, rule.schema, r.body, exceptions)) out.push(`${r.method} ${path} (${rule.schema}): ${problem}`);
  }
  return out;
}

export interface RawAnswer {
  what: string;
  body: unknown;
}

/**
 * Normalized API on an account whose primary gateway is `gateway`: every method it charges, then the follow-ups its
 * capability table offers (a card reserved and captured, a card partly refunded, a pix cancelled). Answers the
 * gateway's own bodies as RouteGate received them (the account's responseFormat raw), each named by what produced it.
 */
export async function normalizedFlows(e2e: E2E, gateway: GatewayId): Promise<RawAnswer[]> {
  const g = gateways().find((x) => x.id === gateway)!;
  const caps = g.adapter.capabilities;
  const answers: RawAnswer[] = [];
  const create = async (method: PaymentMethod, extra: Record<string, unknown> = {}) => {
    // responseFormat raw: each answer is the gateway's own body as RouteGate received it.
    const { key, body } = await prepareCharge(e2e, g, chargeRecipe(g.adapter, method, extra), { responseFormat: 'raw' });
    const res = await e2e.call('POST', '/api/v1/charges', { key, body });
    assert.equal(res.status, 201, `${gateway} ${method}: ${res.text.slice(0, 400)}`);
    const chargeId = String(res.headers['x-rg-charge-id']);
    answers.push({ what: `create ${method}${extra.capture === false ? ' (reserve)' : ''}`, body: gatewayBody(res.body) });
    return { key, chargeId };
  };
  const followUp = async (what: string, key: string, chargeId: string, path: string, body?: unknown) => {
    const res = await e2e.call('POST', `/api/v1/charges/${chargeId}/${path}`, { key, body });
    assert.ok(res.status === 200 || res.status === 201, `${gateway} ${what}: ${res.status} ${res.text.slice(0, 400)}`);
    answers.push({ what, body: gatewayBody(res.body) });
  };
  for (const method of chargeableMethods(g.adapter)) {
    const { key, chargeId } = await create(method);
    if (isCard(method) && supported(caps[method].partial_refund)) await followUp(`${method} partial refund`, key, chargeId, 'refunds', { amount: 500 });
    if (method === 'pix' && supported(caps.pix.cancel)) await followUp('pix cancel', key, chargeId, 'cancel');
  }
  if (supported(caps.credit_card.capture)) {
    const { key, chargeId } = await create('credit_card', { capture: false });
    await followUp('credit_card capture', key, chargeId, 'capture', {});
  }
  return answers;
}

/** The gateway's body inside RouteGate's envelope ({success, data}); never the envelope itself, which would prove nothing. */
function gatewayBody(envelope: { data?: unknown }): unknown {
  assert.ok(envelope.data && typeof envelope.data === 'object', 'the answer carries the gateway body');
  return envelope.data;
}

/** The pairs the target's real API refuses for a native payload (test/compat/pairs.test.ts REFUSED): not charged. */
const REFUSED = new Set(['stripe/mercadopago/boleto', 'stripe/pagbank/boleto', 'mercadopago/stripe/card', 'mercadopago/pagarme/card', 'mercadopago/asaas/card', 'mercadopago/pagbank/card']);

export interface CompatAnswer {
  target: GatewayId;
  method: PairMethod;
  body: unknown;
  /** The follow-up read (GET by the id answered), as the client gets it. */
  read: unknown;
}

/** Compatibility mode `c`: its native create of every method, charged on every gateway, and the read-back of each. */
/** The five gateways with compatibility cases (a gateway added to the registry, e.g. by the new-gateway test, has none). */
const TARGETS: GatewayId[] = ['stripe', 'pagarme', 'asaas', 'mercadopago', 'pagbank'] as GatewayId[];

export async function compatAnswers(e2e: E2E, c: CompatCase): Promise<CompatAnswer[]> {
  const out: CompatAnswer[] = [];
  for (const target of TARGETS) {
    for (const method of Object.keys(c.payloads) as PairMethod[]) {
      if (REFUSED.has(`${c.compat}/${target}/${method}`)) continue;
      const key = await e2e.account({ primaryGateway: target, gatewayFallbacks: [], compatibilityMode: c.compat });
      let payload = c.payloads[method];
      if (c.customer) {
        const customer = await e2e.call('POST', c.customer.path, { rawBody: c.encode(c.customer.body), headers: c.headers(key) });
        assert.equal(customer.status, c.createStatus, customer.text.slice(0, 300));
        payload = c.customer.attach(payload, c.idOf(customer.body));
      }
      const res = await e2e.call('POST', c.createPath, { rawBody: c.encode(payload), headers: c.headers(key) });
      assert.equal(res.status, c.createStatus, `${c.compat} ${method} on ${target}: ${res.text.slice(0, 400)}`);
      assert.equal(res.headers['x-rg-gateway'], target);
      const read = await e2e.call('GET', c.retrievePath(c.idOf(res.body)), { headers: c.headers(key) });
      assert.equal(read.status, 200, read.text.slice(0, 300));
      out.push({ target, method, body: res.body, read: read.body });
    }
  }
  return out;
}

/** Fails with every problem listed, one a line (a test that shows all of them at once). */
export function assertConforms(problems: string[], what: string): void {
  assert.deepEqual(problems, [], `${what} does not conform to the description:\n${problems.join('\n')}`);
}
