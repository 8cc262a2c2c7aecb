import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewayId } from '../../gateways/types';
import type { WireSettings } from '../../gateways/types';
import type { EmulatorPlugin } from '../types';
import type { Disputer, EmulatorControl, Ledger, Payer } from '../control';
import { wireState, type Clearable } from './state';
import { createIdempotency, type Idempotency, type IdempotencyPolicy } from './idempotency';
import { send, type Outcome } from './outcome';
import { createWebhooks, type Webhooks, type WebhookSpec } from './webhooks';

/**
 * The shared emulator core one gateway's emulator is built on. The app-wide parts (fault injection, the request
 * log, the /__control API) act on every emulator from ../control.ts; these are the per-emulator parts, each
 * wired to that control. A gateway's emulator adds only its routes and shapes (docs/emulators.md).
 */
export interface EmulatorCore {
  readonly gateway: GatewayId;
  /** The deployment's wire settings (each gateway's declared wire settings), as the adapter sees them. */
  readonly wire: WireSettings;
  readonly control: EmulatorControl;
  /** Named in-memory collections (Maps, Sets), emptied by POST /__control/reset. */
  state<T extends Readonly<Record<string, Clearable>>>(collections: T): T;
  /** How GET /__control/ledger lists the charges this gateway holds (see LedgerEntry). */
  ledger(list: Ledger): void;
  /** How POST /__control/pay settles a pending pix or boleto at this gateway. */
  payer(pay: Payer): void;
  /** How POST /__control/dispute and /dispute/close open and settle a chargeback at this gateway. */
  disputes(disputer: Disputer): void;
  /** Before every route of this emulator: answer `check`'s outcome when it returns one (a refused credential). */
  authenticate(check: (request: FastifyRequest) => Outcome | undefined): void;
  /** The gateway's idempotency semantics; its stored answers are part of the state (reset clears them). */
  idempotency<F = never>(policy: IdempotencyPolicy<F>): Idempotency;
  /** The gateway's webhooks: what it sends when a charge changes (see WebhookSpec); call `changed(id)` after changes. */
  webhooks<S, C = undefined>(spec: WebhookSpec<S, C>): Webhooks<C>;
}

export function emulatorCore(
  app: FastifyInstance, opts: { gateway: GatewayId; control: EmulatorControl; wire: WireSettings; webhookSecret?: string },
): EmulatorCore {
  const { gateway, control, wire } = opts;
  return {
    gateway,
    wire,
    control,
    state: (collections) => wireState(control, collections),
    ledger: (list) => control.onLedger(gateway, list),
    payer: (pay) => control.onPay(gateway, pay),
    disputes: (disputer) => control.onDispute(gateway, disputer),
    authenticate(check) {
      app.addHook('preHandler', async (request, reply) => {
        const denied = check(request);
        if (denied) return send(reply, denied);
      });
    },
    idempotency(policy) {
      const idempotency = createIdempotency(policy);
      wireState(control, { idempotency: idempotency.store });
      return idempotency;
    },
    webhooks(spec) {
      const { seen } = wireState(control, { seen: new Map<string, string>() });
      return createWebhooks({ gateway, sender: control.webhooks, seen, defaultSecret: opts.webhookSecret, spec });
    },
  };
}

/** A gateway emulator: `build` registers the gateway's routes on `app` (mounted under /<id>) using the core. */
export function defineEmulator(build: (app: FastifyInstance, core: EmulatorCore) => void | Promise<void>): EmulatorPlugin {
  return async (app, opts) => {
    await build(app, emulatorCore(app, opts));
  };
}

export type { DisputeOutcome, Disputer, LedgerEntry, PayOutcome } from '../control';
export type { Clearable } from './state';
export { requestFingerprint, type Idempotency, type IdempotencyPolicy, type RouteIdempotency } from './idempotency';
export { send, dropUndefined, type Json, type Outcome } from './outcome';
export { hmacSha256Hex, sha256Hex, MINUTE_MS, HOUR_MS, type Webhooks, type WebhookSpec } from './webhooks';
export type { WebhookConvention, WebhookEvent, WebhookMessage } from './webhook-sender';
export { toCents, toReais, roundReais, wireToCents, centsToWire, type AmountUnit } from './amounts';
export { DAY_MS, isoNow, isoSeconds, unixNow, dateOnly, dateTime, addDays, brasiliaIso } from './time';
export { validCpfCnpj, boletoFactor, febrabanBoleto, formatBoletoLine } from './documents';
export { declineAnswer } from './declines';
export { bearerToken, basicCredentials, headerValue } from './auth';
export { PNG_1X1, PNG_1X1_BASE64, MINIMAL_PDF } from './files';
export { cardBrand, declineFor, luhnValid, DECLINE_CARDS } from '../cards';
export { randomId, randomDigits, randomUuid } from '../ids';
export { pixBrCode } from '../br-code';
