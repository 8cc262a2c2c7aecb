import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { GATEWAYS } from '../gateways/registry';
import type { WebhookAck } from '../gateways/descriptor';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import type { GatewayWebhook, WebhookRequest } from '../gateways/webhook';
import { callContext, type ChargeService, type GatewayDeps } from '../charges/orchestrator';
import { toPublicError } from '../charges/outcomes';
import { ChargeLocks } from '../charges/charge-locks';
import { MappingBudgetError, MappingEvaluationError } from '../mapping/loader';
import { nowIso } from '../store/db';
import { rgError } from '../errors';
import { sha256Hex } from '../lib/signatures';
import { publicDispute } from '../charges/disputes';
import { buildEvent, isDisputeEvent, movesCharge, type RouteGateEvent, type RouteGateEventType, type VerifiedBy, type WebhookResult } from './event';
import { mismatchOf, resultFromCharge } from './event-checks';
import { readAtGateway, settleCreateFirst } from './gateway-reads';
import { lookupKey } from '../store/webhook-events';
import type { EventCharge, WebhookEventRecord } from '../store/webhook-events';
import { patchFromEvent } from './charge-update';
import { RETRY_FOR_MS } from './backoff';
import type { Forwarder } from './forwarder';
import type { JsonDocuments } from './jwks-cache';
import { newDeliveryId, newEventId } from './ids';

export interface ReceivedWebhook { gateway: string; token?: string; rawBody: Buffer; headers: WebhookRequest['headers']; query: Record<string, string> }

/**
 * What the receiver answers: 200 unless a delivery the gateway is waiting on did not reach the backend (502). A
 * gateway acknowledged on store (descriptor webhookAck 'on-store') waits on no delivery: `queued`, never `delivered: false`.
 */
export type ReceiveOutcome =
  | { kind: 'ignored'; reason: string }
  | { kind: 'processed'; eventId: string; type: RouteGateEventType; duplicate: boolean; delivered: boolean | null; error?: string; queued?: boolean };

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
const ackOf = (gateway: string): WebhookAck => GATEWAYS.find((g) => g.id === gateway)?.webhookAck ?? 'after-forward';
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

    const body = parseNotification(req.rawBody, req.headers['content-type']);
    const request: WebhookRequest = { rawBody: req.rawBody, body, headers: req.headers, query: req.query };
    // undefined when the gateway has none: the mapping then evaluates with its set's own bindings, not a merged copy.
    const bindings = webhook.bindings?.(wire);
    const first = await this.normalize(gateway, request, null, bindings);

    // The per-account URL looks only in its account. The account-less URL belongs to the account whose charge the
    // event names, and only when exactly one charge across accounts answers to it: a guess could hand one tenant's
    // events to another.
    let found = await store.webhookEvents.findCharge(gateway, first.externalId, first.reference, account?.id);
    // A payment RouteGate found at a gateway that is not its charge's (docs/charges.md, "Orphans"): its events are
    // stored on that charge, never applied to it (the charge holds another payment) and never dropped.
    const orphanId = found ? undefined : lookupKey(first.externalId);
    const orphan = orphanId ? await store.charges.findOrphan(gateway, orphanId) : undefined;
    const orphanOf = orphan && (!account || orphan.accountId === account.id) ? orphan : undefined;
    const accountId = account?.id ?? found?.accountId ?? orphanOf?.accountId;
    if (!accountId) {
      this.deps.log.info({ gateway, gatewayType: first.gatewayType }, 'webhook matches no single account: acknowledged and dropped');
      return { kind: 'ignored', reason: 'no account' };
    }
    const credentials = await vault.reveal(accountId, gateway);
    let verifiedBy: VerifiedBy = await this.verify(gateway, webhook, request, credentials ?? {}, accountId) ? 'signature' : null;

    let result = first;
    let resource: unknown = null;
    const ctx = webhook.resolve && credentials
      ? await callContext(this.deps.gatewayDeps, accountId, gateway, found?.id ?? 'webhook', `webhook-${randomUUID()}`) : undefined;
    if (webhook.resolve && ctx) {
      try {
        resource = await webhook.resolve(ctx, request);
      } catch (err) {
        throw toPublicError(err, gateway);
      }
      result = await this.normalize(gateway, request, resource, bindings);
      // What was read is the gateway's answer to RouteGate's own call with the account's credentials.
      if (resource !== null) verifiedBy ??= 'gateway_read';
      found = await store.webhookEvents.findCharge(gateway, result.externalId, result.reference, accountId);
    }
    if (!result.type) return { kind: 'ignored', reason: `${result.gatewayType} is not forwarded` };
    const typed = result as WebhookResult & { type: RouteGateEventType };
    const gatewayEventId = webhook.eventId(request, resource) ?? `sha256:${sha256Hex(req.rawBody)}`;
    if (orphanOf && !found) return this.orphanEvent(gateway, orphanOf, typed, gatewayEventId, body, verifiedBy);
    if (verifiedBy === null) return this.unverified(gateway, accountId, credentials !== undefined, found, typed, gatewayEventId, body);

    const existing = await store.webhookEvents.findByGatewayId(accountId, gateway, gatewayEventId);
    if (existing) return this.redelivered(existing.id, accountId, typed.type, gateway);
    // A charge with its gateway id is settled: reading it again to find that out would cost every event a read.
    if (found && movesCharge(typed.type) && !found.externalId) await settleCreateFirst(this.deps.charges, this.deps.log, accountId, found.id, { gateway, externalId: typed.externalId });
    const event = buildEvent(newEventId(), gateway, nowIso(), found?.id ?? null, typed, gatewayEventId, body, verifiedBy);
    const outcome = await this.record(event, accountId, gatewayEventId, typed, 'apply');
    // findCharge read whether a refund of the charge is in process: the usual "none" needs no second read.
    if (found?.refundInProcess) await this.settleRefunds(found.id, gateway);
    return outcome;
  }

  /**
   * A verified notification about a charge that has refunds in process at its gateway: they are settled now, by
   * reading them at the gateway (docs/charges.md, "Refund lifecycle"). A gateway acknowledged on store is not kept
   * waiting for the read. A failed read leaves them to the reconciler.
   */
  private async settleRefunds(chargeId: string, gateway: GatewayId): Promise<void> {
    const settle = this.deps.charges.followUps.settleRefundsOf(chargeId).catch((err: unknown) => {
      this.deps.log.warn({ err, chargeId, gateway }, 'settling pending refunds after a notification failed; the reconciler settles them');
      return 0;
    });
    if (ackOf(gateway) !== 'on-store') await settle;
  }

  /**
   * A notification nothing verified (no secret or token stored, or one the gateway did not sign): it never changes a
   * charge and is never forwarded as what it claims. Where the account's credentials can read the charge it names,
   * RouteGate reads it at the gateway (storing what the gateway says, as any refresh) and forwards the gateway's
   * answer, verified by that read. Otherwise it is stored, unverified and attached to nothing, for the record.
   */
  private async unverified(
    gateway: GatewayId, accountId: string, hasCredentials: boolean, found: EventCharge | undefined, claimed: WebhookResult & { type: RouteGateEventType },
    gatewayEventId: string, body: unknown,
  ): Promise<ReceiveOutcome> {
    const { store } = this.deps.gatewayDeps;
    if (found && hasCredentials && movesCharge(claimed.type)) {
      const read = await readAtGateway(this.deps.charges, accountId, found.id);
      const answer = read && resultFromCharge(read, claimed.gatewayType, isDisputeEvent(claimed.type));
      if (answer?.type) {
        const typed = answer as WebhookResult & { type: RouteGateEventType };
        // One event per state the gateway showed: repeats of the notification (or forgeries naming the charge) dedupe.
        const readId = `gateway_read:${read!.id}:${read!.status}:${read!.paidAmount}:${read!.refundedAmount}${read!.dispute ? `:dispute-${read!.dispute.status}` : ''}`;
        const existing = await store.webhookEvents.findByGatewayId(accountId, gateway, readId);
        if (existing) return this.redelivered(existing.id, accountId, typed.type, gateway);
        const event = buildEvent(newEventId(), gateway, nowIso(), found.id, typed, readId, body, 'gateway_read');
        return this.record(event, accountId, readId, typed, 'stored already');
      }
    }
    // Its own dedupe key: an unverified copy stored first must not make the gateway's genuine event a duplicate.
    const unverifiedId = `unverified:${gatewayEventId}`;
    const existing = await store.webhookEvents.findByGatewayId(accountId, gateway, unverifiedId);
    if (existing) return { kind: 'processed', eventId: existing.id, type: claimed.type, duplicate: true, delivered: null };
    const event = buildEvent(newEventId(), gateway, nowIso(), null, claimed, unverifiedId, body, null);
    const inserted = await store.webhookEvents.insert({
      id: event.id, accountId, gateway, gatewayEventId: unverifiedId, type: event.type, chargeId: null, payload: JSON.stringify(event), createdAt: event.createdAt, verified: false,
    });
    this.deps.log.warn({ eventId: event.id, gateway, accountId, type: event.type }, 'unverified webhook stored only: it changed no charge and was not forwarded');
    return { kind: 'processed', eventId: event.id, type: event.type, duplicate: !inserted, delivered: null };
  }

  /** An event about an orphan payment: stored on the charge it belongs to, flagged, neither applied nor forwarded. */
  private async orphanEvent(
    gateway: GatewayId, orphan: { chargeId: string; accountId: string; externalId: string }, typed: WebhookResult & { type: RouteGateEventType },
    gatewayEventId: string, body: unknown, verifiedBy: VerifiedBy,
  ): Promise<ReceiveOutcome> {
    const { store } = this.deps.gatewayDeps;
    const existing = await store.webhookEvents.findByGatewayId(orphan.accountId, gateway, gatewayEventId);
    if (existing) return { kind: 'processed', eventId: existing.id, type: typed.type, duplicate: true, delivered: null };
    const event = buildEvent(newEventId(), gateway, nowIso(), orphan.chargeId, typed, gatewayEventId, body, verifiedBy);
    const flag = `about the orphan payment ${orphan.externalId} at ${gateway}, not this charge's own: stored, not applied`;
    const inserted = await store.webhookEvents.insert({
      id: event.id, accountId: orphan.accountId, gateway, gatewayEventId, type: event.type, chargeId: orphan.chargeId, payload: JSON.stringify(event),
      createdAt: event.createdAt, verified: event.verified, flag,
    });
    this.deps.log.info({ eventId: event.id, gateway, chargeId: orphan.chargeId, type: event.type }, 'webhook event about an orphan payment stored on its charge');
    return { kind: 'processed', eventId: event.id, type: event.type, duplicate: !inserted, delivered: null };
  }

  private async normalize(gateway: GatewayId, req: WebhookRequest, resource: unknown, bindings: Record<string, unknown> | undefined): Promise<WebhookResult> {
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

  /** true: the signature matched; false: nothing to check it with (no secret stored) or not signed where that is allowed. A failed check throws. */
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
      this.deps.log.warn({ gateway, accountId }, `webhook accepted without validation (nothing to check its ${gateway} signature with): it moves no money by itself`);
      return false;
    }
    this.listener?.(gateway, 'verified');
    return true;
  }

  /**
   * Event, charge update and delivery in one transaction, under the charge's lock; then the first attempt, which
   * the gateway waits for. A concurrent copy of the same event that wrote first makes this one a duplicate. The
   * event is checked against the charge as it is under the lock: one that disagrees is stored with its flag and
   * neither applied nor forwarded. `charge`: 'apply' the event's change, or 'stored already' (a read at the gateway
   * stored it).
   */
  private async record(event: RouteGateEvent, accountId: string, gatewayEventId: string, result: WebhookResult & { type: RouteGateEventType }, charge: 'apply' | 'stored already'): Promise<ReceiveOutcome> {
    const { store } = this.deps.gatewayDeps;
    const chargeId = event.data.chargeId;
    const lock = chargeId ? await this.deps.charges.locks.acquire(chargeId, this.deps.now() + LOCK_WAIT_MS) : undefined;
    const url = (await store.accounts.settings(accountId)).webhookForwardUrl;
    const deliveryId = newDeliveryId();
    const owner = ChargeLocks.newOwner();
    const now = this.deps.now();
    let inserted = false;
    let flag: string | undefined;
    let stored: WebhookEventRecord | undefined;
    try {
      await store.commit(async (tx) => {
        const current = chargeId ? (await tx.charges.getById(chargeId))! : undefined;
        flag = current && charge === 'apply' ? mismatchOf(current, result) : undefined;
        // A charge whose create is unsettled has no gateway id: the reconciler settles it, not a notification.
        const patch = current && current.externalId && charge === 'apply' && !flag ? patchFromEvent(current, result, event.createdAt) : {};
        // A dispute event tells the dispute as the charge holds it after the event (its amount, its opening), beside
        // the charge's own amounts, which a dispute never changes (a gateway's dispute object may carry none).
        const dispute = patch.dispute ?? current?.dispute;
        if (isDisputeEvent(event.type) && current && dispute) {
          Object.assign(event.data, { dispute: publicDispute(dispute), amount: current.amount, paidAmount: current.paidAmount, refundedAmount: current.refundedAmount });
        }
        stored = {
          id: event.id, accountId, gateway: event.gateway, gatewayEventId, type: event.type, chargeId, payload: JSON.stringify(event), createdAt: event.createdAt,
          verified: event.verified, flag: flag ?? null,
        };
        inserted = await tx.webhookEvents.insert(stored);
        if (!inserted || flag) return;
        if (current && Object.keys(patch).length) await tx.charges.update(current.id, patch);
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
      return this.redelivered(existing.id, accountId, event.type, event.gateway);
    }
    if (flag) {
      this.deps.log.warn({ eventId: event.id, type: event.type, gateway: event.gateway, chargeId, flag }, 'webhook event disagrees with its charge: stored and flagged, not applied or forwarded');
      return { kind: 'processed', eventId: event.id, type: event.type, duplicate: false, delivered: null };
    }
    this.deps.log.info({ eventId: event.id, type: event.type, gateway: event.gateway, chargeId, verifiedBy: event.verifiedBy }, 'webhook event stored');
    if (!url) return { kind: 'processed', eventId: event.id, type: event.type, duplicate: false, delivered: null };
    // The delivery as written above, under the lease written with it: the first attempt need not read it back.
    const known = {
      event: stored!,
      delivery: {
        id: deliveryId, eventId: event.id, accountId, status: 'pending' as const, attempts: 0, nextAttemptAt: now, giveUpAt: now + RETRY_FOR_MS,
        createdAt: event.createdAt, updatedAt: event.createdAt,
      },
    };
    if (ackOf(event.gateway) === 'on-store') {
      // Stored with its delivery: the gateway is told now, and the first attempt runs without it waiting; a failed
      // one is the outbox's to retry (worker.ts), a crash mid-attempt leaves a lease the worker takes over.
      this.attemptInBackground(deliveryId, owner, known);
      return { kind: 'processed', eventId: event.id, type: event.type, duplicate: false, delivered: null, queued: true };
    }
    const attempt = await this.deps.forwarder.attempt(deliveryId, owner, known);
    return { kind: 'processed', eventId: event.id, type: event.type, duplicate: false, delivered: attempt.delivered, error: attempt.attempt?.error ?? undefined };
  }

  /**
   * The gateway sent an event again. Forwarded already (or nothing to forward): 200 at once. Still pending: the
   * gateway is retrying because the backend did not take it, so try now (unless the worker is on it).
   */
  private async redelivered(eventId: string, accountId: string, type: RouteGateEventType, gateway: string): Promise<ReceiveOutcome> {
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
    if (ackOf(gateway) === 'on-store') {
      // Taken already: acknowledged at once; the redelivery only brings the next attempt forward, if nobody is on it.
      if (await store.deliveries.claim(delivery.id, owner, this.deps.now(), this.deps.forwarder.leaseMs)) this.attemptInBackground(delivery.id, owner);
      return { ...base, delivered: null, queued: true };
    }
    if (!await store.deliveries.claim(delivery.id, owner, this.deps.now(), this.deps.forwarder.leaseMs)) {
      // Another copy of this event is being delivered right now (gateways send bursts): its outcome is ours.
      return { ...base, ...(await this.outcomeOf(delivery.id)) };
    }
    const attempt = await this.deps.forwarder.attempt(delivery.id, owner);
    this.deps.log.info({ eventId, accountId, delivered: attempt.delivered }, 'webhook sent again by the gateway');
    return { ...base, delivered: attempt.delivered, error: attempt.attempt?.error ?? undefined };
  }

  /** One delivery attempt nobody waits for (its lease is `owner`'s); what it did is on the delivery's row. */
  private attemptInBackground(deliveryId: string, owner: string, known?: Parameters<Forwarder['attempt']>[2]): void {
    this.deps.forwarder.attempt(deliveryId, owner, known).catch((err: unknown) => {
      this.deps.log.error({ err, deliveryId }, 'webhook delivery attempt failed to run; the outbox retries it');
    });
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

/**
 * A notification's body: JSON, or a form (some gateways send form-encoded notifications that carry only a code to
 * read back), as an object of its first values.
 */
function parseNotification(rawBody: Buffer, contentType: string | string[] | undefined): unknown {
  const type = String(Array.isArray(contentType) ? contentType[0] : contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    const fields = new Map<string, string>();
    for (const [k, v] of new URLSearchParams(rawBody.toString('latin1'))) if (!fields.has(k)) fields.set(k, v);
    return Object.fromEntries(fields);
  }
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw rgError('INVALID_JSON');
  }
}
