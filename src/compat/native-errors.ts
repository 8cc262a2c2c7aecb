import type { FastifyBaseLogger } from 'fastify';
import { envelope, type RouteGateError } from '../errors';
import type { GatewayId } from '../gateways/registry-ids';
import type { MappingRegistry } from '../mapping/loader';

/** What the error answer may say about the charge it concerns (set on the request before an error is thrown). */
export interface NativeErrorContext {
  chargeId?: string;
  /** The charge in the gateway's native create-response shape (a decline carries it, as gateways answer declines). */
  charge?: unknown;
}

/** The input of mappings/<id>/native.error.jsonata: the contract docs/compatibility.md states. */
export interface NativeErrorInput {
  status: number;
  code: string;
  message: string;
  gateway?: string;
  declineCode?: string;
  fields?: Array<{ field: string; message: string }>;
  chargeId?: string;
  charge?: unknown;
}

export interface NativeErrorAnswer { status: number; body: unknown; headers: Record<string, string> }

export function nativeErrorInput(err: RouteGateError, ctx: NativeErrorContext = {}): NativeErrorInput {
  const input: NativeErrorInput = { status: err.statusCode, code: err.code, message: err.message };
  if (err.gateway) input.gateway = err.gateway;
  if (err.extra.declineCode) input.declineCode = err.extra.declineCode;
  if (err.details?.errors?.length) input.fields = err.details.errors.map((e) => ({ field: e.field, message: e.message }));
  if (ctx.chargeId) input.chargeId = ctx.chargeId;
  if (ctx.charge !== undefined) input.charge = ctx.charge;
  return input;
}

const validAnswer = (v: unknown): v is { status: number; body: unknown } => {
  const s = (v as { status?: unknown } | undefined)?.status;
  return typeof s === 'number' && Number.isInteger(s) && s >= 200 && s <= 599 && (v as { body?: unknown }).body !== undefined;
};

/**
 * The error in `gateway`'s own shape and status convention (its native.error mapping), with the RouteGate code in
 * X-RG-Error-Code and the error's X-RG-* headers. A gateway without that mapping yet, or a mapping that fails,
 * answers RouteGate's envelope: the client still gets a clear error, never a stack trace.
 */
export async function nativeErrorAnswer(
  mappings: MappingRegistry, gateway: GatewayId, err: RouteGateError, opts: { production: boolean; log?: FastifyBaseLogger; context?: NativeErrorContext },
): Promise<NativeErrorAnswer> {
  const headers: Record<string, string> = { ...(err.extra.headers ?? {}), 'x-rg-error-code': err.code };
  const set = mappings.get(gateway);
  if (set?.has('native.error')) {
    try {
      const answer = await set.evaluate('native.error', nativeErrorInput(err, opts.context));
      if (validAnswer(answer)) return { status: answer.status, body: answer.body, headers };
      opts.log?.error({ gateway }, 'native.error mapping returned no {status, body}; answering the RouteGate envelope');
    } catch (cause) {
      opts.log?.error({ gateway, err: cause }, 'native.error mapping failed; answering the RouteGate envelope');
    }
  }
  return { status: err.statusCode, body: envelope(err, opts.production), headers };
}
