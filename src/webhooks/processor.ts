import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { GATEWAYS } from '../gateways/registry';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import type { GatewayWebhook, WebhookRequest } from '../gateways/webhook';
import { callContext, type ChargeService, type GatewayDeps } from '../charges/orchestrator';
import { toPublicError } from '../charges/outcomes';
import { ChargeLocks } from '../charges/charge-locks';
import { MappingBudgetError, MappingEvaluationError } from '../mapping/loader';
import { nowIso } from '../store/db';
import { rgError } from '../errors';
import { sha256Hex } from '../lib/signatures';
import { buildEvent, type RouteGateEvent, type RouteGateEventType, type WebhookResult } from './event';
import { patchFromEvent } from './charge-update';
import { RETRY_FOR_MS } from './backoff';
import type { Forwarder } from './forwarder';
import type { JsonDocuments } from './jwks-cache';

export interface ReceivedWebhook { gateway: string; token?: string; rawBody: Buffer; headers: WebhookRequest['headers']; query: Record<string, string> }

/** What the receiver answers: 200 unless a delivery the gateway is waiting on did not reach the backend (502). */
export type ReceiveOutcome =
  | { kind: 'ignored'; reason: string }
  | { kind: 'processed'; eventId: string; type: RouteGateEventType; duplicate: boolean; delivered: boolean | null; error?: string };

/** Told of every notification: received, then verified / unverified / rejected. */
export type ReceiverListener = (gateway: string, stage: 'received' | 'verified' | 'unverified' | 'rejected') => void;

export interface ProcessorDeps {
  gatewayDeps: GatewayDeps;
  charges: ChargeService;
  forwarder: Forwarder;
  /** JWKS documents a verifier's credentials name, cached (src/webhooks/jwks-cache.ts). */
  http: JsonDocuments;
  log: FastifyBaseLogger;
  now: () => number;
}

const LOCK_WAIT_MS = 10_000;
const JWKS_TIMEOUT_MS = 5_000;

/**
 * A gateway notification from bytes to outbox: find the gateway and the account, verify, read what the notification
 * points to (a notification may carry only an id), normalize with mappings/<id>/webhook.jsonata, dedupe, update the charge under its lock,
 * and write the event with its delivery in one transaction before the first (synchronous) delivery attempt.
 */
export class WebhookProcessor {
  listener: ReceiverListener | undefined;

  constructor(private readonly deps: ProcessorDeps) {}

  async receive(req: ReceivedWebhook): Promise<ReceiveOutcome> {
    const { store, vault, wire } = this.deps.gatewayDeps;
    const gateway = resolveGatewayId(req.gateway);
    const webhook = gateway ? GATEWAYS.find((g) => g.id === gateway)?.webhook : undefined;
    if (!gateway || !webhook) throw rgError('WEBHOOK_GATEWAY_UNKNOWN', { gateway: req.gateway });
    const account = req.token === undefined ? undefined : await store.accounts.getByWebhookToken(req.token);
    if (req.token !== undefined && !account) throw rgError('WEBHOOK_TOKEN_UNKNOWN');
    this.listener?.(gateway, 'received');

    let body: unknown;
    try {
      body = JSON.parse(req.rawBody.toString('utf8'));
    } catch {
      throw rgError('INVALID_JSON');
    }
    const request: WebhookRequest = { rawBody: req.rawBody, body, headers: req.headers, query: req.query };
    const bindings = webhook.bindings?.(wire) ?? {};
    const first = await this.normalize(gateway, request, null, bindings);

    // The account-less URL: the account is the one whose charge the event is about.
    const found = await store.webhookEvents.findCharge(gateway, first.externalId, first.reference);
    const accountId = account?.id ?? found?.accountId;
    if (!accountId) {
      this.deps.log.info({ gateway, gatewayType: first.gatewayType }, 'webhook matches no account: acknowledged and dropped');
      return { kind: 'ignored', reason: 'no account' };
    }
    const credentials = await vault.reveal(accountId, gateway) ?? {};
    const verified = await this.verify(gateway, webhook, request, credentials, accountId);

    let result = first;
    let resource: unknown = null;
    if (webhook.resolve) {
      const ctx = await callContext(this.deps.gatewayDeps, accountId, gateway, found?.id ?? 'webhook', `webhook-${randomUUID()}`);
      if (!ctx) throw rgError('MISSING_CREDENTIALS', { gateway }, { gateway });
      try {
        resource = await webhook.resolve(ctx, request);
      } catch (err) {
        throw toPublicError(err, gateway);
      }
      result = await this.normalize(gateway, request, resource, bindings);
    }
    if (!result.type) return { kind: 'ignored', reason: `${result.gatewayType} is not forwarded` };
    const typed = result as WebhookResult & { type: RouteGateEventType };
    const gatewayEventId = webhook.eventId(request, resource) ?? `sha256:${sha256Hex(req.rawBody)}`;

    const existing = await store.webhookEvents.findByGatewayId(accountId, gateway, gatewayEventId);
    if (existing) return this.redelivered(existing.id, accountId, typed.type);
    const charge = await store.webhookEvents.findCharge(gateway, result.externalId, result.reference);
    const chargeId = charge?.accountId === accountId ? charge.id : null;
    const event = buildEvent(`evt_${randomUUID().replace(/-/g, '')}`, gateway, nowIso(), chargeId, typed, gatewayEventId, body);
    return this.record(event, accountId, gatewayEventId, typed, verified);
  }

  private async normalize(gateway: GatewayId, req: WebhookRequest, resource: unknown, bindings: Record<string, unknown>): Promise<WebhookResult> {
    try {
      return await this.deps.gatewayDeps.mappings.get(gateway)!.evaluate<WebhookResult>('webhook', { event: req.body, query: req.query, resource }, bindings);
    } catch (err) {
      if (err instanceof MappingBudgetError) throw rgError('MAPPING_BUDGET_EXCEEDED', { gateway, mapping: 'webhook', reason: err.reason }, { gateway, cause: err });
      // The body is the sender's: one the mapping cannot read (a number where the gateway sends a string) is its
      // 400, not a 502 that has the gateway send it again; logged, since a real event failing here is a mapping bug.
      if (err instanceof MappingEvaluationError) {
        this.deps.log.warn({ gateway, mapping: 'webhook', reason: err.message }, 'webhook body not readable by its mapping');
        throw rgError('WEBHOOK_BODY_UNREADABLE', { gateway }, { gateway, cause: err });
      }
      throw err;
    }
  }

  /** true: the signature matched; false: accepted without validation (no secret stored). A failed check throws. */
  private async verify(gateway: GatewayId, webhook: GatewayWebhook, req: WebhookRequest, credentials: Record<string, string>, accountId: string): Promise<boolean> {
    const verdict = await webhook.verify(req, {
      credentials, now: this.deps.now(), fetchJson: (url, opts) => this.deps.http.getJson(url, JWKS_TIMEOUT_MS, opts),
      gatewayOrigin: new URL(this.deps.gatewayDeps.gatewayUrls[gateway]).origin,
    });
    if (verdict.result === 'invalid') {
      this.listener?.(gateway, 'rejected');
      this.deps.log.warn({ gateway, accountId, reason: verdict.reason }, 'webhook rejected: signature check failed');
      throw rgError('WEBHOOK_SIGNATURE_INVALID', { gateway, reason: verdict.reason }, { gateway });
    }
    if (verdict.result === 'unconfigured') {
      this.listener?.(gateway, 'unverified');
      this.deps.log.warn({ gateway, accountId }, `webhook accepted without validation: no ${gateway} webhookSecret is stored for the account`);
      return false;
    }
    this.listener?.(gateway, 'verified');
    return true;
  }

  /**
   * Event, charge update and delivery in one transaction, under the charge's lock; then the first attempt, which
   * the gateway waits for. A concurrent copy of the same event that wrote first makes this one a duplicate.
   */
  private async record(event: RouteGateEvent, accountId: string, gatewayEventId: string, result: WebhookResult & { type: RouteGateEventType }, verified: boolean): Promise<ReceiveOutcome> {
    const { store } = this.deps.gatewayDeps;
    const chargeId = event.data.chargeId;
    const lock = chargeId ? await this.deps.charges.locks.acquire(chargeId, this.deps.now() + LOCK_WAIT_MS) : undefined;
    const url = (await store.accounts.settings(accountId)).webhookForwardUrl;
    const deliveryId = `dlv_${randomUUID().replace(/-/g, '')}`;
    const owner = ChargeLocks.newOwner();
    const now = this.deps.now();
    let inserted = false;
    try {
      await store.commit(async (tx) => {
        inserted = await tx.webhookEvents.insert({
          id: event.id, accountId, gateway: event.gateway, gatewayEventId, type: event.type, chargeId, payload: JSON.stringify(event), createdAt: event.createdAt, verified,
        });
        if (!inserted) return;
        if (chargeId) {
          const current = (await tx.charges.getById(chargeId))!;
          const patch = patchFromEvent(current, result);
          if (Object.keys(patch).length) await tx.charges.update(chargeId, patch);
        }
        if (url) {
          await tx.deliveries.insert({ id: deliveryId, eventId: event.id, accountId, nextAttemptAt: now, giveUpAt: now + RETRY_FOR_MS },
            { owner, expiresAt: now + this.deps.forwarder.leaseMs });
        }
      });
    } finally {
      if (lock) await this.deps.charges.locks.release(chargeId!, lock);
    }
    if (!inserted) {
      const existing = (await store.webhookEvents.findByGatewayId(accountId, event.gateway, gatewayEventId))!;
      return this.redelivered(existing.id, accountId, event.type);
    }
    this.deps.log.info({ eventId: event.id, type: event.type, gateway: event.gateway, chargeId }, 'webhook event stored');
    if (!url) return { kind: 'processed', eventId: event.id, type: event.type, duplicate: false, delivered: null };
    const attempt = await this.deps.forwarder.attempt(deliveryId, owner);
    return { kind: 'processed', eventId: event.id, type: event.type, duplicate: false, delivered: attempt.delivered, error: attempt.attempt?.error ?? undefined };
  }

  /**
   * The gateway sent an event again. Forwarded already (or nothing to forward): 200 at once. Still pending: the
   * gateway is retrying because the backend did not take it, so try now (unless the worker is on it).
   */
  private async redelivered(eventId: string, accountId: string, type: RouteGateEventType): Promise<ReceiveOutcome> {
    const { store } = this.deps.gatewayDeps;
    const deliveries = await store.deliveries.forEvent(eventId);
    const base = { kind: 'processed' as const, eventId, type, duplicate: true };
    const pending = deliveries.filter((d) => d.status === 'pending');
    // Nothing pending: delivered, or nothing to deliver (no forward URL then, or given up: the merchant redelivers).
    if (deliveries.some((d) => d.status === 'delivered') || pending.length === 0) {
      return { ...base, delivered: deliveries.some((d) => d.status === 'delivered') ? true : null };
    }
    const delivery = pending[pending.length - 1];
    const owner = ChargeLocks.newOwner();
    if (!await store.deliveries.claim(delivery.id, owner, this.deps.now(), this.deps.forwarder.leaseMs)) {
      // Another copy of this event is being delivered right now (gateways send bursts): its outcome is ours.
      return { ...base, ...(await this.outcomeOf(delivery.id)) };
    }
    const attempt = await this.deps.forwarder.attempt(delivery.id, owner);
    this.deps.log.info({ eventId, accountId, delivered: attempt.delivered }, 'webhook sent again by the gateway');
    return { ...base, delivered: attempt.delivered, error: attempt.attempt?.error ?? undefined };
  }

  /** Wait (at most one delivery timeout) for the attempt someone else is making, and tell how it went. */
  private async outcomeOf(deliveryId: string): Promise<{ delivered: boolean; error?: string }> {
    const until = Date.now() + this.deps.forwarder.options.timeoutMs + 1_000;
    let attempts = (await this.deps.gatewayDeps.store.deliveries.get(deliveryId))?.attempts ?? 0;
    for (;;) {
      const d = await this.deps.gatewayDeps.store.deliveries.get(deliveryId);
      if (!d || d.status === 'delivered') return { delivered: true };
      if (d.attempts > attempts || d.status === 'failed') return { delivered: false, error: 'the backend did not take it' };
      if (Date.now() > until) return { delivered: false, error: 'a delivery attempt is still in progress' };
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
