import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayId } from '../gateways/types';
import { WebhookSender } from './core/webhook-sender';

/**
 * Before the handler (the gateway never acts on the request): `latency` (then normal), `http500`, `http429`,
 * `malformed`, `reset` (connection dropped), `hang` (no answer). After the handler (the gateway took the
 * request and stored its effects): `late` (the answer leaves only after latencyMs), `lose` (the connection is
 * dropped instead of answering).
 */
export const FAULT_KINDS = ['latency', 'http500', 'http429', 'reset', 'hang', 'malformed', 'late', 'lose'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
const AFTER_HANDLER: ReadonlySet<FaultKind> = new Set(['late', 'lose']);

/** `method` / `path` (below the gateway prefix, without query string) restrict which requests the fault hits. */
export interface Fault { kind: FaultKind; remaining: number; latencyMs?: number; method?: string; path?: string }

/**
 * One charge as the gateway holds it, for tests that assert what really happened at the gateway.
 * Amounts are integer cents whatever the gateway's unit; `status` is the gateway's own; `id` is what RouteGate
 * keeps as the charge's externalId; `reference` is the RouteGate reference the create carried (the charge id, in
 * whatever field the gateway keeps a merchant reference), null when it carried none; `paymentMethod` is RouteGate's name for the method.
 */
export interface LedgerEntry {
  gateway: GatewayId;
  id: string;
  reference: string | null;
  paymentMethod: 'credit_card' | 'debit_card' | 'boleto' | 'pix';
  status: string;
  amount: number;
  paidAmount: number;
  refundedAmount: number;
  refunds: number;
  /** What the buyer pays, where the gateway added its own installment interest on top of `amount` (an issuer's plan). */
  buyerTotal?: number;
}
export type Ledger = () => Array<Omit<LedgerEntry, 'gateway'>>;

/**
 * How the next refunds at a gateway come out, each one gateway's own "not yet" (docs/emulators.md, "Refund
 * outcomes"): `in_process` (the refund is taken and held in process), `transaction_not_found` and
 * `insufficient_balance` (refused, nothing refunded). An emulator ignores the ones that are not its gateway's.
 */
export const REFUND_OUTCOMES = ['in_process', 'transaction_not_found', 'insufficient_balance'] as const;
export type RefundOutcome = (typeof REFUND_OUTCOMES)[number];

/** Settles the refunds a gateway holds in process on one payment: approved or rejected, with its notification. */
export type RefundSettler = (externalId: string, outcome: 'approved' | 'rejected') => { ok: true; settled: number } | { ok: false; status: 404 | 409; message: string };

/** What an emulator answers when asked to play the payer of a pending pix or boleto. */
export type PayOutcome = { ok: true } | { ok: false; status: 404 | 409; message: string };
export type Payer = (externalId: string) => PayOutcome;

/**
 * What an emulator answers when a chargeback is opened or settled on one of its charges (/__control/dispute): the
 * gateway's own dispute (or payment) as it now holds it, or the gateway's native error body and status (a charge
 * that was never paid cannot be charged back).
 */
export type DisputeOutcome = { ok: true; dispute: unknown } | { ok: false; status: number; body: unknown };
export interface Disputer {
  /** `amount` in cents (the whole paid amount when absent), where the gateway's dispute carries an amount. */
  open(externalId: string, amount?: number): DisputeOutcome;
  close(externalId: string, outcome: 'won' | 'lost'): DisputeOutcome;
}

export interface RecordedRequest {
  gateway: GatewayId;
  method: string;
  path: string; // path below the gateway prefix, with query string, e.g. /v1/payment_intents
  headers: Record<string, string | string[] | undefined>;
  body: unknown; // parsed (JSON, or form-decoded)
  rawBody?: string;
  at: string;
}

/**
 * Fault injection and request capture shared by the five emulators, so tests can make a gateway slow,
 * broken or silent for the next N calls and assert exactly what RouteGate sent.
 */
export class EmulatorControl {
  /** The gateways served (the registry's ids); emulators import this module, so it never imports the registry. */
  constructor(readonly gateways: readonly GatewayId[]) {}

  /** The emulators' webhook outbox and record (/__control/webhooks). */
  readonly webhooks = new WebhookSender();

  private readonly faults = new Map<GatewayId, Fault[]>();
  private requests: RecordedRequest[] = [];
  private readonly hanging = new Set<FastifyRequest>();
  private readonly resetters: Array<() => void> = [];
  private readonly payers = new Map<GatewayId, Payer>();
  private readonly disputers = new Map<GatewayId, Disputer>();
  private readonly refundOutcomes = new Map<GatewayId, Array<{ outcome: RefundOutcome; remaining: number }>>();
  private readonly refundSettlers = new Map<GatewayId, RefundSettler>();
  private readonly ledgers = new Map<GatewayId, Ledger>();
  /** Faults that act once the handler has run, kept per request until onSend. */
  private readonly pendingAfter = new WeakMap<FastifyRequest, Fault>();

  addFault(gateway: GatewayId, fault: Fault): void {
    const list = this.faults.get(gateway) ?? [];
    list.push(fault);
    this.faults.set(gateway, list);
  }

  /** One gateway's pending faults, or every gateway's (suites that fault gateways in parallel clear their own). */
  clearFaults(gateway?: GatewayId): void {
    if (gateway) this.faults.delete(gateway);
    else this.faults.clear();
  }

  /** The first pending fault for a gateway that applies to this request, consuming one use of it. */
  takeFault(gateway: GatewayId, request?: { method: string; path: string }): Fault | undefined {
    const list = this.faults.get(gateway) ?? [];
    const at = list.findIndex((f) => !request || applies(f, request));
    if (at < 0) return undefined;
    const fault = list[at];
    fault.remaining -= 1;
    if (fault.remaining <= 0) list.splice(at, 1);
    return fault;
  }

  /** Remember a `late` / `lose` fault for this request; `applyAfterHandler` acts on it in onSend. */
  deferFault(request: FastifyRequest, fault: Fault): void {
    this.pendingAfter.set(request, fault);
  }

  takeDeferredFault(request: FastifyRequest): Fault | undefined {
    const fault = this.pendingAfter.get(request);
    this.pendingAfter.delete(request);
    return fault;
  }

  record(entry: RecordedRequest): void {
    this.requests.push(entry);
    if (this.requests.length > 5000) this.requests.splice(0, this.requests.length - 5000);
  }

  listRequests(gateway?: GatewayId): RecordedRequest[] {
    return gateway ? this.requests.filter((r) => r.gateway === gateway) : [...this.requests];
  }

  clearRequests(): void {
    this.requests = [];
  }

  /** Emulators register a function that wipes their in-memory state. */
  onReset(fn: () => void): void {
    this.resetters.push(fn);
  }

  /** Emulators register how the payer settles a pending pix or boleto at that gateway. */
  onPay(gateway: GatewayId, payer: Payer): void {
    this.payers.set(gateway, payer);
  }

  pay(gateway: GatewayId, externalId: string): PayOutcome {
    const payer = this.payers.get(gateway);
    return payer ? payer(externalId) : { ok: false, status: 409, message: `${gateway} has no payer simulation` };
  }

  /** Emulators register how a chargeback is opened and settled at that gateway, with its real notifications. */
  onDispute(gateway: GatewayId, disputer: Disputer): void {
    this.disputers.set(gateway, disputer);
  }

  dispute(gateway: GatewayId, externalId: string, amount?: number): DisputeOutcome {
    const d = this.disputers.get(gateway);
    return d ? d.open(externalId, amount) : { ok: false, status: 409, body: { message: `${gateway} has no chargeback simulation` } };
  }

  closeDispute(gateway: GatewayId, externalId: string, outcome: 'won' | 'lost'): DisputeOutcome {
    const d = this.disputers.get(gateway);
    return d ? d.close(externalId, outcome) : { ok: false, status: 409, body: { message: `${gateway} has no chargeback simulation` } };
  }

  addRefundOutcome(gateway: GatewayId, outcome: RefundOutcome, count: number): void {
    const list = this.refundOutcomes.get(gateway) ?? [];
    list.push({ outcome, remaining: count });
    this.refundOutcomes.set(gateway, list);
  }

  /** The next refund's forced outcome at this gateway (one use consumed), if one of this kind is set. */
  takeRefundOutcome(gateway: GatewayId, kind: RefundOutcome): boolean {
    const list = this.refundOutcomes.get(gateway) ?? [];
    const at = list.findIndex((o) => o.outcome === kind);
    if (at < 0) return false;
    list[at].remaining -= 1;
    if (list[at].remaining <= 0) list.splice(at, 1);
    return true;
  }

  /** Emulators register how their in-process refunds complete (POST /__control/refunds/settle). */
  onRefundSettle(gateway: GatewayId, settler: RefundSettler): void {
    this.refundSettlers.set(gateway, settler);
  }

  settleRefunds(gateway: GatewayId, externalId: string, outcome: 'approved' | 'rejected'): ReturnType<RefundSettler> {
    const settler = this.refundSettlers.get(gateway);
    return settler ? settler(externalId, outcome) : { ok: false, status: 409, message: `${gateway} holds no refunds in process` };
  }

  /** Emulators register how to list the charges they hold (see LedgerEntry). */
  onLedger(gateway: GatewayId, ledger: Ledger): void {
    this.ledgers.set(gateway, ledger);
  }

  ledger(gateway?: GatewayId): LedgerEntry[] {
    const gateways = gateway ? [gateway] : [...this.ledgers.keys()];
    return gateways.flatMap((g) => (this.ledgers.get(g)?.() ?? []).map((entry) => ({ gateway: g, ...entry })));
  }

  resetAll(): void {
    this.clearFaults();
    this.refundOutcomes.clear();
    this.clearRequests();
    this.webhooks.reset();
    for (const fn of this.resetters) fn();
    // Under --expose-gc (the bench's emulator) what was wiped is collected now, not in the middle of the next run.
    (globalThis as { gc?: () => void }).gc?.();
  }

  trackHanging(req: FastifyRequest): void {
    this.hanging.add(req);
    req.raw.socket.once('close', () => this.hanging.delete(req));
  }

  releaseHanging(): void {
    for (const req of this.hanging) req.raw.socket.destroy();
    this.hanging.clear();
  }
}

function applies(fault: Fault, request: { method: string; path: string }): boolean {
  if (fault.method && fault.method.toUpperCase() !== request.method.toUpperCase()) return false;
  return !fault.path || fault.path === request.path.split('?')[0];
}

export function gatewayOfPath(control: EmulatorControl, url: string): GatewayId | undefined {
  const first = url.split('/')[1]?.split('?')[0];
  return control.gateways.includes(first ?? '') ? (first as GatewayId) : undefined;
}

/** preHandler for the emulator app: record, then apply the next fault for that gateway if any. */
export async function recordAndApplyFault(control: EmulatorControl, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const gateway = gatewayOfPath(control, request.url);
  if (!gateway) return;
  const path = request.url.slice(gateway.length + 1);
  control.record({
    gateway,
    method: request.method,
    path,
    headers: { ...request.headers },
    body: request.body,
    rawBody: (request as FastifyRequest & { rawBody?: string }).rawBody,
    at: new Date().toISOString(),
  });
  const fault = control.takeFault(gateway, { method: request.method, path });
  if (!fault) return;
  if (AFTER_HANDLER.has(fault.kind)) return control.deferFault(request, fault);
  switch (fault.kind) {
    case 'latency':
      await new Promise((r) => setTimeout(r, fault.latencyMs ?? 1000));
      return;
    case 'http500':
      return reply.code(500).send({ message: 'Internal Server Error (injected by the emulator control API)' });
    case 'http429':
      return reply.code(429).header('retry-after', '1').send({ message: 'Too Many Requests (injected by the emulator control API)' });
    case 'malformed':
      return reply.code(200).header('content-type', 'application/json').send('{"id": "truncated');
    case 'reset':
      reply.hijack();
      request.raw.socket.destroy();
      return;
    case 'hang':
      reply.hijack();
      control.trackHanging(request);
      return;
  }
}

/**
 * onSend for the emulator app: the handler has run (the charge exists at the gateway); `late` holds the answer
 * for latencyMs (or until the client gives up), `lose` drops the connection without answering.
 */
export async function applyAfterHandler(control: EmulatorControl, request: FastifyRequest, payload: unknown): Promise<unknown> {
  const fault = control.takeDeferredFault(request);
  if (!fault) return payload;
  const socket = request.raw.socket;
  if (fault.kind === 'lose') {
    socket.destroy();
    return payload;
  }
  control.trackHanging(request); // so closing the server does not wait out the delay
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, fault.latencyMs ?? 1000);
    function done() {
      clearTimeout(timer);
      socket.off('close', done);
      resolve();
    }
    socket.once('close', done);
  });
  return payload;
}

interface FaultBody { gateway: string; fault: FaultKind; count?: number; latencyMs?: number; method?: string; path?: string }

/** /__control routes: faults, captured requests, the gateways' ledger, the payer, reset. */
export async function controlRoutes(app: FastifyInstance, opts: { control: EmulatorControl }): Promise<void> {
  const { control } = opts;
  app.post<{ Body: FaultBody }>('/faults', {
    schema: {
      body: {
        type: 'object',
        required: ['gateway', 'fault'],
        additionalProperties: false,
        properties: {
          gateway: { type: 'string', enum: [...control.gateways] },
          fault: { type: 'string', enum: [...FAULT_KINDS] },
          count: { type: 'integer', minimum: 1, default: 1 },
          latencyMs: { type: 'integer', minimum: 0 },
          method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
          path: { type: 'string', pattern: '^/' },
        },
      },
    },
  }, async (req, reply) => {
    const { gateway, fault, count = 1, latencyMs, method, path } = req.body;
    control.addFault(gateway as GatewayId, { kind: fault, remaining: count, latencyMs, method, path });
    return reply.code(201).send({ gateway, fault, count, latencyMs, method, path });
  });
  app.delete<{ Querystring: { gateway?: string } }>('/faults', {
    schema: {
      querystring: {
        type: 'object', additionalProperties: false,
        properties: { gateway: { type: 'string', enum: [...control.gateways] } },
      },
    },
  }, async (req) => {
    control.clearFaults(req.query.gateway as GatewayId | undefined);
    return { cleared: true };
  });
  app.get<{ Querystring: { gateway?: string } }>('/requests', async (req) => {
    return { requests: control.listRequests(req.query.gateway as GatewayId | undefined) };
  });
  // What each gateway holds, in cents: tests assert "one charge in total" and "refunded what the gateway says".
  app.get<{ Querystring: { gateway?: string } }>('/ledger', {
    schema: {
      querystring: {
        type: 'object', additionalProperties: false,
        properties: { gateway: { type: 'string', enum: [...control.gateways] } },
      },
    },
  }, async (req) => ({ entries: control.ledger(req.query.gateway as GatewayId | undefined) }));
  app.delete('/requests', async () => {
    control.clearRequests();
    return { cleared: true };
  });
  // The payer pays a pending pix or boleto (each emulator settles it the way its gateway would).
  app.post<{ Body: { gateway: string; id: string } }>('/pay', {
    schema: {
      body: {
        type: 'object', required: ['gateway', 'id'], additionalProperties: false,
        properties: { gateway: { type: 'string', enum: [...control.gateways] }, id: { type: 'string', minLength: 1 } },
      },
    },
  }, async (req, reply) => {
    const outcome = control.pay(req.body.gateway as GatewayId, req.body.id);
    if (!outcome.ok) return reply.code(outcome.status).send({ paid: false, message: outcome.message });
    return { paid: true, gateway: req.body.gateway, id: req.body.id };
  });
  // A chargeback on a paid charge, opened and settled the way each gateway does it, with its real notification.
  app.post<{ Body: { gateway: string; id: string; amount?: number } }>('/dispute', {
    schema: {
      body: {
        type: 'object', required: ['gateway', 'id'], additionalProperties: false,
        properties: {
          gateway: { type: 'string', enum: [...control.gateways] }, id: { type: 'string', minLength: 1 }, amount: { type: 'integer', minimum: 1 },
        },
      },
    },
  }, async (req, reply) => {
    const outcome = control.dispute(req.body.gateway as GatewayId, req.body.id, req.body.amount);
    if (!outcome.ok) return reply.code(outcome.status).send(outcome.body);
    return reply.code(201).send({ gateway: req.body.gateway, id: req.body.id, dispute: outcome.dispute });
  });
  app.post<{ Body: { gateway: string; id: string; outcome: 'won' | 'lost' } }>('/dispute/close', {
    schema: {
      body: {
        type: 'object', required: ['gateway', 'id', 'outcome'], additionalProperties: false,
        properties: {
          gateway: { type: 'string', enum: [...control.gateways] }, id: { type: 'string', minLength: 1 }, outcome: { type: 'string', enum: ['won', 'lost'] },
        },
      },
    },
  }, async (req, reply) => {
    const outcome = control.closeDispute(req.body.gateway as GatewayId, req.body.id, req.body.outcome);
    if (!outcome.ok) return reply.code(outcome.status).send(outcome.body);
    return { gateway: req.body.gateway, id: req.body.id, dispute: outcome.dispute };
  });
  // The next `count` refunds at the gateway come back "not yet" in that gateway's own way (REFUND_OUTCOMES).
  app.post<{ Body: { gateway: string; outcome: RefundOutcome; count?: number } }>('/refund-outcomes', {
    schema: {
      body: {
        type: 'object', required: ['gateway', 'outcome'], additionalProperties: false,
        properties: {
          gateway: { type: 'string', enum: [...control.gateways] }, outcome: { type: 'string', enum: [...REFUND_OUTCOMES] }, count: { type: 'integer', minimum: 1, default: 1 },
        },
      },
    },
  }, async (req, reply) => {
    const { gateway, outcome, count = 1 } = req.body;
    control.addRefundOutcome(gateway as GatewayId, outcome, count);
    return reply.code(201).send({ gateway, outcome, count });
  });
  // The gateway completes (or rejects) the refunds it holds in process on a payment, and notifies as it would.
  app.post<{ Body: { gateway: string; id: string; outcome: 'approved' | 'rejected' } }>('/refunds/settle', {
    schema: {
      body: {
        type: 'object', required: ['gateway', 'id', 'outcome'], additionalProperties: false,
        properties: {
          gateway: { type: 'string', enum: [...control.gateways] }, id: { type: 'string', minLength: 1 }, outcome: { type: 'string', enum: ['approved', 'rejected'] },
        },
      },
    },
  }, async (req, reply) => {
    const done = control.settleRefunds(req.body.gateway as GatewayId, req.body.id, req.body.outcome);
    if (!done.ok) return reply.code(done.status).send({ settled: 0, message: done.message });
    return { gateway: req.body.gateway, id: req.body.id, outcome: req.body.outcome, settled: done.settled };
  });
  app.post('/reset', async () => {
    control.resetAll();
    return { reset: true };
  });
}
