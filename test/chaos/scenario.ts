import assert from 'node:assert/strict';
import type { EmulatorControlClient } from '../../src/sandbox/control-client';
import type { LedgerEntry } from '../../src/sandbox/control';
import type { GatewayId } from '../../src/gateways/registry-ids';
import type { CallOptions, Reply } from '../helper';
import { CARD, CUSTOMER } from '../helpers/e2e';
import type { ChaosCase, Fault, Operation } from './plan';

// One chaos case, in phases the in-process suite and the SIGKILL suite share: prepare the charge the operation acts
// on (no fault), inject the fault on the call that moves money, fire the operation with an Idempotency-Key, settle
// (the path the case names), then check the invariants against the emulators' ledgers (/__control/ledger), never
// against RouteGate's own figures alone.

/** The clock of the suite: small, so a case settles in seconds; passed to the service as its configuration. */
export interface Timing {
  /** ROUTEGATE_GATEWAY_TIMEOUT_MS. */
  gatewayTimeoutMs: number;
  /** How long `latency` and `late` hold a call: beyond the timeout, inside the horizon. */
  holdMs: number;
  /** ROUTEGATE_SETTLE_HORIZON_MS: after it a lookup's "none" is proof. */
  horizonMs: number;
  /** ROUTEGATE_REQUEST_DEADLINE_MS (the charge lock's lease is this plus as much again, up to 5 s more). */
  deadlineMs: number;
  /** ROUTEGATE_RECONCILE_INTERVAL_MS and ROUTEGATE_RECONCILE_BACKOFF_MS. */
  reconcileIntervalMs: number;
  reconcileBackoffMs: number;
  /** The bound: every charge is settled this long after the fault has passed, whoever settles it. */
  boundMs: number;
}

export function timing(overrides: Partial<Timing> = {}): Timing {
  // The hold outlasts the create, its same-key replay and the lookup after them (3 timeouts and change): a lookup
  // before the hold ends answers "none" for a charge the gateway is about to make, every run, not by a race.
  const base = { gatewayTimeoutMs: 300, holdMs: 1_200, horizonMs: 2_000, deadlineMs: 3_000, reconcileIntervalMs: 200, reconcileBackoffMs: 100, ...overrides };
  // The horizon, then the reconciler's backoff reaching past it (it doubles from reconcileBackoffMs), then slack.
  const boundMs = Number(process.env.ROUTEGATE_CHAOS_BOUND_MS ?? 0) || base.horizonMs * 2 + base.holdMs + 2 * base.gatewayTimeoutMs + 1_500;
  return { boundMs, ...base, ...overrides };
}

export function serviceEnv(t: Timing): Record<string, string> {
  return {
    ROUTEGATE_GATEWAY_TIMEOUT_MS: String(t.gatewayTimeoutMs), ROUTEGATE_SETTLE_HORIZON_MS: String(t.horizonMs),
    ROUTEGATE_REQUEST_DEADLINE_MS: String(t.deadlineMs), ROUTEGATE_RECONCILE_INTERVAL_MS: String(t.reconcileIntervalMs),
    ROUTEGATE_RECONCILE_BACKOFF_MS: String(t.reconcileBackoffMs), ROUTEGATE_RATE_LIMIT: '1000000',
  };
}

export interface Client {
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  control: EmulatorControlClient;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Where each gateway's create goes (exact path, below the gateway prefix). */
const CREATE_PATH: Record<GatewayId, string> = {
  stripe: '/v1/payment_intents', pagarme: '/core/v5/orders', asaas: '/v3/payments', mercadopago: '/v1/payments', pagbank: '/orders',
};
/** The method of each follow-up's money call (the only call of that method in the operation; reads are GETs). */
const FOLLOW_UP_METHOD: Record<GatewayId, Record<'capture' | 'cancel' | 'refund', string>> = {
  stripe: { capture: 'POST', cancel: 'POST', refund: 'POST' },
  pagarme: { capture: 'POST', cancel: 'DELETE', refund: 'DELETE' },
  asaas: { capture: 'POST', cancel: 'POST', refund: 'POST' },
  mercadopago: { capture: 'PUT', cancel: 'PUT', refund: 'POST' },
  pagbank: { capture: 'POST', cancel: 'POST', refund: 'POST' },
};

const isCreate = (op: Operation) => op === 'create' || op === 'create_fallback';
const isRefund = (op: Operation) => op === 'partial_refund' || op === 'full_refund';

/** The emulator control filter that hits the operation's money-moving call and nothing else. */
export function moneyCall(gateway: GatewayId, op: Operation): { method: string; path?: string } {
  if (isCreate(op)) return { method: 'POST', path: CREATE_PATH[gateway] };
  return { method: FOLLOW_UP_METHOD[gateway][isRefund(op) ? 'refund' : (op as 'capture' | 'cancel')] };
}

export async function injectFault(control: EmulatorControlClient, gateway: GatewayId, op: Operation, fault: Fault, count: number, holdMs: number): Promise<void> {
  const target = moneyCall(gateway, op);
  switch (fault) {
    case 'latency':
    case 'late':
      return control.fault(gateway, fault, { count, latencyMs: holdMs, ...target });
    case 'lose':
    case 'reset':
    case 'hang':
      return control.fault(gateway, fault, { count, ...target });
    case 'readback500':
      // A create has no read-back of its own: its answer is lost, and the lookup that would find it answers 500.
      if (isCreate(op)) await control.fault(gateway, 'lose', { count: 1, ...target });
      return control.fault(gateway, 'http500', { count: 2, method: 'GET' });
  }
}

export const chargeBody = (amount: number, capture = true) => ({
  paymentMethod: 'credit_card', amount, description: 'Chaos order', customer: CUSTOMER, creditCard: CARD, ...(capture ? {} : { capture: false }),
});

/** The account settings a case needs (a fresh account per case: its charges are the case's charges). */
export function caseSettings(c: { gateway: GatewayId; fallback?: GatewayId }): Record<string, unknown> {
  return { primaryGateway: c.gateway, gatewayFallbacks: c.fallback ? [c.fallback] : [], stripeRawCardData: true };
}

export interface Prepared {
  /** The charge the follow-up acts on (undefined for a create: known once RouteGate names it). */
  chargeId?: string;
  request: { method: string; path: string; body?: unknown };
  /** What the client asked to move, in cents (a cancel moves the authorization back: its amount). */
  asked: number;
  /** The gateway's charge before the operation (follow-ups). */
  before?: LedgerEntry;
}

/** The charge a follow-up acts on, created without any fault; and the operation's request. */
export async function prepare(client: Client, key: string, c: { gateway: GatewayId; op: Operation; amount: number }): Promise<Prepared> {
  if (isCreate(c.op)) return { request: { method: 'POST', path: '/api/v1/charges', body: chargeBody(c.amount) }, asked: c.amount };
  const preAuth = c.op === 'capture' || c.op === 'cancel';
  const created = await client.call('POST', '/api/v1/charges', { key, body: chargeBody(c.amount, !preAuth) });
  assert.equal(created.status, 201, `${c.gateway}: the charge to ${c.op} was created: ${created.text}`);
  const charge = created.body.data;
  const before = (await client.control.ledger(c.gateway)).find((e) => e.id === charge.externalId);
  assert.ok(before, `${c.gateway} holds ${charge.externalId}`);
  const base = `/api/v1/charges/${charge.id}`;
  const partial = Math.floor(c.amount / 3);
  switch (c.op) {
    case 'capture': return { chargeId: charge.id, before, asked: c.amount, request: { method: 'POST', path: `${base}/capture`, body: {} } };
    case 'cancel': return { chargeId: charge.id, before, asked: c.amount, request: { method: 'POST', path: `${base}/cancel` } };
    case 'partial_refund': return { chargeId: charge.id, before, asked: partial, request: { method: 'POST', path: `${base}/refunds`, body: { amount: partial } } };
    default: return { chargeId: charge.id, before, asked: c.amount, request: { method: 'POST', path: `${base}/refunds`, body: {} } };
  }
}

export function fire(client: Client, key: string, p: Prepared, idempotencyKey: string): Promise<Reply> {
  return client.call(p.request.method, p.request.path, { key, headers: { 'idempotency-key': idempotencyKey }, ...(p.request.body === undefined ? {} : { body: p.request.body }) });
}

/** A client's answer it acts on: success or a refusal. 504 "being confirmed", 409 "busy / in progress" and 500 are not. */
export const isFinal = (r: Reply) => (r.status >= 200 && r.status < 300) || (r.status >= 400 && r.status < 500 && r.status !== 409) || r.status === 502;
const succeeded = (r: Reply) => r.status >= 200 && r.status < 300;

interface StoredCharge {
  id: string; status: string; gateway: string; externalId: string | null; amount: number; paidAmount: number; refundedAmount: number;
  captured: boolean | null; attempts: Array<{ operation: string; outcome: string; gateway: string }>;
}

async function stored(client: Client, key: string, id: string, refresh = false): Promise<StoredCharge | undefined> {
  const res = await client.call('GET', `/api/v1/charges/${id}${refresh ? '?refresh=true' : ''}`, { key });
  if (res.status === 200) return res.body.data;
  // A refresh the charge cannot take (never created at a gateway, or the gateway failed): the stored charge.
  return refresh ? stored(client, key, id) : undefined;
}

/**
 * Settled: no longer `processing` (the create's outcome is known, whoever learned it: a webhook may settle the
 * charge and leave the create's own attempt as it was), and no follow-up on it whose outcome RouteGate does not know.
 */
export const isSettled = (c: StoredCharge | undefined) => Boolean(c && c.status !== 'processing'
  && !c.attempts.some((a) => MONEY_FOLLOW_UPS.has(a.operation) && (a.outcome === 'in_flight' || a.outcome === 'unknown')));
/** Follow-ups that move money (reads and reconciler passes are history: an unanswered read moved nothing). */
const MONEY_FOLLOW_UPS = new Set(['capture', 'cancel', 'refund']);

/** Every charge of the case's account (one Idempotency-Key: there must be one). */
async function chargesOf(client: Client, key: string): Promise<string[]> {
  const res = await client.call('GET', '/api/v1/charges?limit=100', { key });
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((c: { id: string }) => c.id);
}

export interface Outcome {
  /** Every answer the client got for its Idempotency-Key, in order (the first, the retries, the last check). */
  answers: Reply[];
  /** How long after the fault passed the charge was settled (undefined: not within the bound). */
  settledAfterMs?: number;
}

/**
 * Learn the outcome the way the case says, within the bound: `retry` repeats the request under the same key until a
 * final answer; `refresh` reads with ?refresh=true; `reconciler` and `webhook` only read the stored charge (the
 * reconciler, or the gateway's event, must settle it). In every path the client ends with one more same-key retry,
 * which must be final and must not move money again.
 */
export async function settle(client: Client, key: string, p: Prepared, idempotencyKey: string, path: string, first: Reply | undefined, boundMs: number): Promise<Outcome> {
  const answers: Reply[] = first ? [first] : [];
  const start = Date.now();
  const until = start + boundMs;
  const create = p.chargeId === undefined;
  let id = p.chargeId ?? headerId(first);
  let settledAfterMs: number | undefined;
  let gotFinal = path !== 'retry' || (first !== undefined && isFinal(first));
  while (Date.now() < until) {
    if (path === 'retry' && !gotFinal) {
      const again = await fire(client, key, p, idempotencyKey);
      answers.push(again);
      id ??= headerId(again);
      // A create's retry answers the charge as it stands (a settled failure keeps its stored status code).
      gotFinal = isFinal(again) || (create && id !== undefined && isSettled(await stored(client, key, id)));
    }
    id ??= (await chargesOf(client, key))[0];
    const now = id ? await stored(client, key, id, path === 'refresh') : undefined;
    if (process.env.ROUTEGATE_CHAOS_TRACE) console.log(`# ${Date.now() - start} ms: ${now?.status} ${now?.attempts.map((a) => `${a.operation}:${a.outcome}`).join(', ')}`);
    if (id && gotFinal && isSettled(now)) {
      settledAfterMs = Date.now() - start;
      break;
    }
    await sleep(100);
  }
  answers.push(await fire(client, key, p, idempotencyKey));
  return { answers, settledAfterMs };
}

const headerId = (r: Reply | undefined) => {
  const h = r?.headers['x-rg-charge-id'];
  return typeof h === 'string' && h.startsWith('chg_') ? h : undefined;
};

const net = (e: LedgerEntry) => e.paidAmount - e.refundedAmount;
const AUTHORIZED = new Set(['requires_capture', 'pending', 'AUTHORIZED', 'authorized']);
const voided = (e: LedgerEntry) => e.paidAmount === 0 && !AUTHORIZED.has(e.status);

/** The stored charge's status as the gateway's ledger entry implies it. */
function statusOf(e: LedgerEntry): string {
  if (e.paidAmount === 0) return voided(e) ? 'cancelled' : 'approved';
  return e.refundedAmount >= e.paidAmount ? 'refunded' : 'approved';
}

/** The invariants of issue 39 item 8, for one case once settled. */
export async function checkInvariants(client: Client, key: string, c: { gateway: GatewayId; op: Operation; name: string }, p: Prepared, o: Outcome, boundMs: number): Promise<void> {
  const ids = await chargesOf(client, key);
  const label = (what: string) => `${c.name}: ${what} (answers: ${o.answers.map((a) => a.status).join(' ')})`;
  // A fresh account per case: one Idempotency-Key (a create), or the one charge the follow-up acts on.
  assert.equal(ids.length, 1, label('one charge for one Idempotency-Key'));
  const charge = (await stored(client, key, ids[0]))!;
  // Bounded: settled within the bound (whoever settled it), and the client's last same-key retry is an answer.
  assert.ok(o.settledAfterMs !== undefined, label(`settled within ${boundMs} ms: still ${charge.status}, attempts ${charge.attempts.map((a) => `${a.operation}:${a.outcome}`).join(', ')}`));
  const last = o.answers.at(-1)!;
  // A create's retry answers what the settled charge is (its status code is the stored error's); a follow-up's
  // retry must be an answer the client can act on, not "still unknown" (504) or "busy" (409).
  if (!isCreate(c.op)) assert.ok(isFinal(last), label(`the same-key retry after settling is a final answer, got ${last.status} ${last.text.slice(0, 300)}`));

  const ledger = await client.control.ledger();
  const mine = ledger.filter((e) => e.reference === charge.id || (charge.externalId !== null && e.id === charge.externalId && e.gateway === charge.gateway));
  const anySuccess = o.answers.some(succeeded);
  const believesSuccess = succeeded(last);

  if (isCreate(c.op)) {
    // Money moved across every gateway: what the client asked for, once, or nothing.
    const paid = mine.filter((e) => e.paidAmount > 0);
    assert.ok(paid.length <= 1, label(`the buyer is charged at most once across all gateways: ${JSON.stringify(paid)}`));
    const total = mine.reduce((s, e) => s + net(e), 0);
    if (charge.status === 'approved') {
      assert.equal(total, p.asked, label('the gateways hold exactly the amount asked'));
      assert.equal(paid[0].gateway, charge.gateway, label('the charge names the gateway that holds the money'));
      assert.equal(paid[0].id, charge.externalId, label('the charge names the gateway charge'));
      assert.equal(paid[0].amount, p.asked);
      assert.equal(charge.paidAmount, paid[0].paidAmount, label('stored paidAmount equals the ledger'));
    } else {
      assert.ok(['failed', 'declined'].includes(charge.status), label(`settled status ${charge.status}`));
      assert.equal(total, 0, label(`stored ${charge.status} but a gateway holds money: ${JSON.stringify(mine)}`));
    }
    assert.equal(believesSuccess, charge.status === 'approved', label('the same-key retry tells the stored outcome'));
    if (anySuccess) assert.equal(charge.status, 'approved', label('a charge answered 201 stays charged'));
    return;
  }

  const after = mine.find((e) => e.id === p.before!.id && e.gateway === c.gateway);
  assert.ok(after, label('the gateway still holds the charge'));
  assert.equal(mine.length, 1, label(`one gateway charge: ${JSON.stringify(mine)}`));
  // Stored equals the ledger.
  assert.equal(charge.externalId, after.id);
  assert.equal(charge.refundedAmount, after.refundedAmount, label('stored refundedAmount equals the ledger'));
  assert.equal(charge.status, statusOf(after), label(`stored status equals the ledger (${after.status}, paid ${after.paidAmount}, refunded ${after.refundedAmount})`));
  if (after.paidAmount > 0) assert.equal(charge.paidAmount, after.paidAmount, label('stored paidAmount equals the ledger'));
  if (after.paidAmount === 0 && !voided(after)) assert.equal(charge.captured, false, label('an authorization not captured is stored uncaptured'));

  let moved: boolean;
  if (isRefund(c.op)) {
    const refunded = after.refundedAmount - p.before!.refundedAmount;
    const refunds = after.refunds - p.before!.refunds;
    assert.ok(refunds <= 1, label(`the refund was applied ${refunds} times`));
    assert.ok(refunded === 0 || refunded === p.asked, label(`refunded ${refunded}, asked ${p.asked}`));
    moved = refunded === p.asked;
  } else if (c.op === 'capture') {
    assert.ok(after.paidAmount === 0 || after.paidAmount === p.asked, label(`captured ${after.paidAmount}, asked ${p.asked}`));
    moved = after.paidAmount === p.asked;
  } else {
    moved = voided(after);
  }
  assert.equal(believesSuccess, moved, label(`the same-key retry answers ${last.status} but the gateway ${moved ? 'applied' : 'did not apply'} the ${c.op}`));
  if (anySuccess) assert.ok(moved, label(`answered success but the gateway did not apply the ${c.op}`));
}

/** A whole in-process case: prepare, fault, fire, settle, check. */
export async function runCase(client: Client, key: string, c: ChaosCase, t: Timing, idempotencyKey: string): Promise<Outcome> {
  const p = await prepare(client, key, c);
  await injectFault(client.control, c.gateway, c.op, c.fault, c.count, t.holdMs);
  let first: Reply;
  const started = Date.now();
  try {
    first = await fire(client, key, p, idempotencyKey);
    // A gateway that holds the call (latency, late, hang): RouteGate's timeout runs to expiry, and the client still
    // has its answer within the request deadline.
    if (c.fault === 'latency' || c.fault === 'late' || c.fault === 'hang') {
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= t.gatewayTimeoutMs, `${c.name}: answered in ${elapsed} ms, before the ${t.gatewayTimeoutMs} ms timeout expired (${first.status})`);
      // Slack for a busy machine (CI shares its cores): the deadline is checked, not the scheduler.
      assert.ok(elapsed <= t.deadlineMs + 1_000, `${c.name}: answered in ${elapsed} ms, past the ${t.deadlineMs} ms request deadline`);
    }
  } finally {
    // This gateway's only: other gateways' cases run at the same time.
    await client.control.clearFaults(c.gateway);
  }
  const o = await settle(client, key, p, idempotencyKey, c.settle, first, t.boundMs);
  // A held call acts when its hold ends, maybe after RouteGate settled: the ledgers are read once every held call
  // has acted (a charge made then at a gateway RouteGate gave up on is what the check must see).
  if (c.fault === 'latency' || c.fault === 'late') await sleep(started + t.holdMs * c.count + 300 - Date.now());
  await checkInvariants(client, key, c, p, o, t.boundMs);
  return o;
}
