import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_IDS, type GatewayId } from '../gateways/registry-ids';

export const FAULT_KINDS = ['latency', 'http500', 'http429', 'reset', 'hang', 'malformed'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault { kind: FaultKind; remaining: number; latencyMs?: number }

/** What an emulator answers when asked to play the payer of a pending pix or boleto. */
export type PayOutcome = { ok: true } | { ok: false; status: 404 | 409; message: string };
export type Payer = (externalId: string) => PayOutcome;

export interface RecordedRequest {
  gateway: GatewayId;
  method: string;
  path: string; // path below the gateway prefix, with query string, e.g. /v1/payment_intents
  headers: Record<string, string | string[] | undefined>;
  body: unknown; // parsed (JSON, or form-decoded for Stripe)
  rawBody?: string;
  at: string;
}

/**
 * Fault injection and request capture shared by the five emulators, so tests can make a gateway slow,
 * broken or silent for the next N calls and assert exactly what RouteGate sent.
 */
export class EmulatorControl {
  private readonly faults = new Map<GatewayId, Fault[]>();
  private requests: RecordedRequest[] = [];
  private readonly hanging = new Set<FastifyRequest>();
  private readonly resetters: Array<() => void> = [];
  private readonly payers = new Map<GatewayId, Payer>();

  addFault(gateway: GatewayId, fault: Fault): void {
    const list = this.faults.get(gateway) ?? [];
    list.push(fault);
    this.faults.set(gateway, list);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  /** The next pending fault for a gateway, consuming one use of it. */
  takeFault(gateway: GatewayId): Fault | undefined {
    const list = this.faults.get(gateway);
    const fault = list?.[0];
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) list!.shift();
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

  resetAll(): void {
    this.clearFaults();
    this.clearRequests();
    for (const fn of this.resetters) fn();
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

export function gatewayOfPath(url: string): GatewayId | undefined {
  const first = url.split('/')[1]?.split('?')[0];
  return (GATEWAY_IDS as readonly string[]).includes(first ?? '') ? (first as GatewayId) : undefined;
}

/** preHandler for the emulator app: record, then apply the next fault for that gateway if any. */
export async function recordAndApplyFault(control: EmulatorControl, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const gateway = gatewayOfPath(request.url);
  if (!gateway) return;
  control.record({
    gateway,
    method: request.method,
    path: request.url.slice(gateway.length + 1),
    headers: { ...request.headers },
    body: request.body,
    rawBody: (request as FastifyRequest & { rawBody?: string }).rawBody,
    at: new Date().toISOString(),
  });
  const fault = control.takeFault(gateway);
  if (!fault) return;
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

interface FaultBody { gateway: string; fault: FaultKind; count?: number; latencyMs?: number }

/** /__control routes: faults, captured requests, reset. */
export async function controlRoutes(app: FastifyInstance, opts: { control: EmulatorControl }): Promise<void> {
  const { control } = opts;
  app.post<{ Body: FaultBody }>('/faults', {
    schema: {
      body: {
        type: 'object',
        required: ['gateway', 'fault'],
        additionalProperties: false,
        properties: {
          gateway: { type: 'string', enum: [...GATEWAY_IDS] },
          fault: { type: 'string', enum: [...FAULT_KINDS] },
          count: { type: 'integer', minimum: 1, default: 1 },
          latencyMs: { type: 'integer', minimum: 0 },
        },
      },
    },
  }, async (req, reply) => {
    const { gateway, fault, count = 1, latencyMs } = req.body;
    control.addFault(gateway as GatewayId, { kind: fault, remaining: count, latencyMs });
    return reply.code(201).send({ gateway, fault, count, latencyMs });
  });
  app.delete('/faults', async () => {
    control.clearFaults();
    return { cleared: true };
  });
  app.get<{ Querystring: { gateway?: string } }>('/requests', async (req) => {
    return { requests: control.listRequests(req.query.gateway as GatewayId | undefined) };
  });
  app.delete('/requests', async () => {
    control.clearRequests();
    return { cleared: true };
  });
  // The payer pays a pending pix or boleto (each emulator settles it the way its gateway would).
  app.post<{ Body: { gateway: string; id: string } }>('/pay', {
    schema: {
      body: {
        type: 'object', required: ['gateway', 'id'], additionalProperties: false,
        properties: { gateway: { type: 'string', enum: [...GATEWAY_IDS] }, id: { type: 'string', minLength: 1 } },
      },
    },
  }, async (req, reply) => {
    const outcome = control.pay(req.body.gateway as GatewayId, req.body.id);
    if (!outcome.ok) return reply.code(outcome.status).send({ paid: false, message: outcome.message });
    return { paid: true, gateway: req.body.gateway, id: req.body.id };
  });
  app.post('/reset', async () => {
    control.resetAll();
    return { reset: true };
  });
}
