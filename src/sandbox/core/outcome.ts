import type { FastifyReply } from 'fastify';

/** A JSON object as the emulators build and store it. */
export type Json = Record<string, any>;

/**
 * What an emulated gateway answers: status, body and any extra headers. Routes compute outcomes and `send`
 * them, so the idempotency store can keep and replay exactly what was answered.
 */
export interface Outcome {
  status: number;
  body: unknown;
  headers?: Readonly<Record<string, string>>;
}

export function send(reply: FastifyReply, out: Outcome, extraHeaders?: Readonly<Record<string, string>>): FastifyReply {
  reply.code(out.status);
  for (const [name, value] of Object.entries({ ...out.headers, ...extraHeaders })) reply.header(name, value);
  return reply.send(out.body);
}

/** The object without its undefined members (what the real APIs leave out rather than send as null). */
export function dropUndefined<T extends Json>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
