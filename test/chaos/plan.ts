import { GATEWAY_IDS, type GatewayId } from '../../src/gateways/registry-ids';
import { ADAPTERS } from '../../src/gateways/registry';

// Which chaos cases run: a fixed seed picks them (printed by the suite; ROUTEGATE_CHAOS_SEED replays a run), so a
// failure is reproduced by running the same seed again. The default run covers every gateway x operation cell with
// two faults chosen so that every (gateway, fault) and every (operation, fault) pair occurs; ROUTEGATE_CHAOS=long
// runs every fault on every cell, for several seeds (amounts, counts and settle paths differ per seed).

export const OPERATIONS = ['create', 'create_fallback', 'capture', 'partial_refund', 'full_refund', 'cancel'] as const;
export type Operation = (typeof OPERATIONS)[number];

/**
 * `latency`: the gateway holds the request past RouteGate's timeout, then acts on it. `late`: it acts, then answers
 * after the timeout. `lose`: it acts, then drops the connection. `reset`: the connection drops before it acts.
 * `hang`: it never answers nor acts. `readback500`: the read that follows the money call (the lookup after a lost
 * create, the read-back after a refund) answers 500.
 */
export const FAULTS = ['latency', 'late', 'lose', 'reset', 'hang', 'readback500'] as const;
export type Fault = (typeof FAULTS)[number];

/** How the outcome is learned once the fault has passed. */
export const SETTLE_PATHS = ['retry', 'refresh', 'reconciler', 'webhook'] as const;
export type SettlePath = (typeof SETTLE_PATHS)[number];

export interface ChaosCase {
  gateway: GatewayId;
  op: Operation;
  fault: Fault;
  /** How many calls the fault hits (2: the same-key replay is hit too). */
  count: 1 | 2;
  settle: SettlePath;
  /** The charge's amount in cents. */
  amount: number;
  /** For create_fallback: the account's fallback gateway. */
  fallback?: GatewayId;
  name: string;
}

export const LONG = process.env.ROUTEGATE_CHAOS === 'long';
export const SEED = Number(process.env.ROUTEGATE_CHAOS_SEED ?? 20_261_202) >>> 0;

/** mulberry32: small, fast and the same on every platform. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)];

/** Whether `gateway` offers `op` on a credit card (the suite's payment method: every gateway takes one). */
export function offers(gateway: GatewayId, op: Operation): boolean {
  const cell = ADAPTERS[gateway].capabilities.credit_card;
  const ok = (c: unknown) => c !== 'unsupported';
  switch (op) {
    case 'create':
    case 'create_fallback': return ok(cell.charge);
    case 'capture': return ok(cell.capture);
    case 'partial_refund': return ok(cell.partial_refund);
    case 'full_refund': return ok(cell.refund);
    case 'cancel': return ok(cell.cancel);
  }
}

/** Webhook settlement needs events that reach the service: gateways that notify a registered endpoint. */
const NOTIFIES_ENDPOINT: ReadonlySet<GatewayId> = new Set(['stripe', 'pagarme', 'asaas']);

function makeCase(rand: () => number, gateway: GatewayId, op: Operation, fault: Fault): ChaosCase {
  let settle = pick(rand, SETTLE_PATHS);
  if (settle === 'webhook' && !NOTIFIES_ENDPOINT.has(gateway)) settle = 'reconciler';
  // PagBank has no lookup by reference: a create it may not have taken is settled by the client's same-key retry
  // (replayed under the same x-idempotency-key) or by its notifications, which the suite does not route.
  if (gateway === 'pagbank' && (op === 'create' || op === 'create_fallback')) settle = 'retry';
  const count = rand() < 0.5 ? 1 : 2;
  // 10.00 to 99.99: every gateway's minimum, and a third of it is still a valid partial refund.
  const amount = 1000 + Math.floor(rand() * 9000);
  const others = GATEWAY_IDS.filter((g) => g !== gateway);
  const fallback = op === 'create_fallback' ? pick(rand, others) : undefined;
  const name = `${gateway} ${op}${fallback ? `->${fallback}` : ''} under ${fault}${count === 2 ? ' x2' : ''}, settled by ${settle}, ${amount} cents`;
  return { gateway, op, fault, count, settle, amount, fallback, name };
}

/** ROUTEGATE_CHAOS_ONLY: run only the cases whose name matches this regular expression (to replay one failure). */
const ONLY = process.env.ROUTEGATE_CHAOS_ONLY ? new RegExp(process.env.ROUTEGATE_CHAOS_ONLY) : undefined;

/** The in-process cases for one seed. */
export function chaosCases(seed: number, long = LONG): ChaosCase[] {
  return allCases(seed, long).filter((c) => !ONLY || ONLY.test(c.name));
}

function allCases(seed: number, long: boolean): ChaosCase[] {
  const rand = prng(seed);
  const shift = Math.floor(rand() * FAULTS.length);
  const cases: ChaosCase[] = [];
  GATEWAY_IDS.forEach((gateway, i) => {
    OPERATIONS.forEach((op, j) => {
      if (!offers(gateway, op)) return;
      // Two faults per cell, k and k+3: along a row (5 gateways) or a column (6 operations) every fault comes up.
      const faults = long ? [...FAULTS] : [FAULTS[(i + j + shift) % FAULTS.length], FAULTS[(i + j + shift + 3) % FAULTS.length]];
      for (const fault of faults) cases.push(makeCase(rand, gateway, op, fault));
    });
  });
  return cases;
}

/** The SIGKILL batches: each batch runs one operation on every gateway at once, then kills the service mid-call. */
export function killBatches(seed: number, long = LONG): Array<Array<{ gateway: GatewayId; op: Operation; amount: number; fallback?: GatewayId }>> {
  const rand = prng(seed ^ 0x5eed);
  // By default the create (crash recovery on every gateway) and one follow-up the seed picks.
  const ops = long ? [...OPERATIONS] : ['create' as const, ...pickDistinct(rand, OPERATIONS.filter((o) => o !== 'create' && o !== 'create_fallback'), 1)];
  return ops.map((op) => GATEWAY_IDS.filter((g) => offers(g, op)).map((gateway) => {
    const c = makeCase(rand, gateway, op, 'latency');
    return { gateway, op, amount: c.amount, fallback: c.fallback };
  }));
}

function pickDistinct<T>(rand: () => number, list: readonly T[], n: number): T[] {
  const pool = [...list];
  const out: T[] = [];
  while (out.length < n && pool.length) out.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]);
  return out;
}

/** The seeds a run covers: the one given (or the default), and in long mode the next four too. */
export function seeds(): number[] {
  return LONG ? [0, 1, 2, 3, 4].map((i) => (SEED + i) >>> 0) : [SEED];
}
