import type { GatewayId } from '../../src/gateways/registry-ids';

export type PairMethod = 'card' | 'pix' | 'boleto';

/**
 * One compat gateway's data for test/compat/pairs.test.ts (test/compat/cases/<compat id>.ts): how its clients send a
 * native create, and how its native response is checked field by field. The harness charges each payload on every
 * target gateway and checks the target emulator was charged 19.99 reais in its own unit.
 */
export interface CompatCase {
  compat: GatewayId;
  /** The native create path at the root (the harness also runs it under /compat/<id>). */
  createPath: string;
  retrievePath(id: string): string;
  /** The request headers of a native call with the RouteGate key, the way this gateway's SDK sends its own key. */
  headers(key: string): Record<string, string>;
  encode(body: unknown): string;
  /** 19.99 reais in the compat gateway's own create body; a method left out is not offered by its API. */
  payloads: Partial<Record<PairMethod, unknown>>;
  /**
   * A native customer create (with the payer's CPF): the harness creates one first, as integrations do, and attaches it.
   * Absent where the gateway's API has no customer resource (PagBank's Orders API: the buyer goes inline).
   */
  customer?: { path: string; body: unknown; attach(payload: unknown, id: string): unknown };
  createStatus: number;
  idOf(body: unknown): string;
  assertCreated(body: unknown, ctx: { method: PairMethod; target: GatewayId; chargeId: string }): void;
  assertRetrieved(body: unknown, created: unknown): void;
  /** Optional: the native error of a REFUSED pair, checked field by field (the harness checks status and X-RG-Error-Code). */
  assertRefused?(body: unknown, ctx: { method: PairMethod; target: GatewayId; status: number }): void;
}
