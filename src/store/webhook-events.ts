import type { DB } from './db';
import { refundInProcessWhere } from './charges';

export interface WebhookEventRecord {
  id: string;
  accountId: string;
  gateway: string;
  /** The gateway's id for the event (or a hash of its body): the dedupe key with account and gateway. */
  gatewayEventId: string;
  type: string;
  chargeId: string | null;
  /** The RouteGate event exactly as forwarded (its bytes are what the signatures cover). */
  payload: string;
  createdAt: string;
  /**
   * What it says could be trusted: the gateway's signature was checked, or its data is the gateway's own answer to
   * RouteGate's read (false: nothing verified it, stored only; null: stored before this was recorded).
   */
  verified: boolean | null;
  /** Why a verified event was neither applied nor forwarded (it disagrees with its charge); null: nothing to flag. */
  flag?: string | null;
}

/**
 * The charge an event names, with what the receiver decides on without reading it again: its gateway id (null while
 * its create is unsettled) and whether a refund of it is in process at the gateway (refusals kept for later aside).
 */
export interface EventCharge { id: string; accountId: string; externalId: string | null; refundInProcess: boolean }

/** The columns findCharge reads for a charge `c` (both stores): its id, account, gateway id and refund-in-process flag. */
export function eventChargeColumns(c: string): string {
  return `${c}.id, ${c}.account_id, ${c}.external_id,
      EXISTS (SELECT 1 FROM charge_attempts a WHERE a.charge_id = ${c}.id AND ${refundInProcessWhere('a')}) AS refund_in_process`;
}

type EventChargeRow = { id: string; account_id: string; external_id: string | null; refund_in_process: number | boolean };
export const eventChargeOf = (r: EventChargeRow): EventCharge => ({
  id: r.id, accountId: r.account_id, externalId: r.external_id, refundInProcess: r.refund_in_process === true || r.refund_in_process === 1,
});

interface Raw {
  id: string; account_id: string; gateway: string; gateway_event_id: string; type: string; charge_id: string | null; payload: string; created_at: string;
  verified: number | null; flag: string | null;
}

const toRecord = (r: Raw): WebhookEventRecord => ({
  id: r.id, accountId: r.account_id, gateway: r.gateway, gatewayEventId: r.gateway_event_id, type: r.type, chargeId: r.charge_id, payload: r.payload, createdAt: r.created_at,
  verified: r.verified === null ? null : r.verified === 1, flag: r.flag ?? null,
});

/**
 * The one charge both lookups agree on: none, two charges for the gateway's id (a refs id another charge shares), or
 * the gateway's id and RouteGate's id naming different charges are no answer. An event attached by a guess could
 * move another tenant's money or reach another tenant's backend.
 */
export function onlyCharge(byExternal: EventCharge[], byReference: EventCharge[]): EventCharge | undefined {
  const ids = new Set([...byExternal, ...byReference].map((c) => c.id));
  if (ids.size !== 1) return undefined;
  return byExternal[0] ?? byReference[0];
}

/** Gateway events turned into RouteGate events, one per (account, gateway, gateway event id). */
export class WebhookEventsRepository {
  private readonly insertStmt;
  private readonly byGatewayIdStmt;
  private readonly byIdStmt;
  private readonly chargeByExternalStmt;
  private readonly chargeByExternalInAccountStmt;
  private readonly chargeByIdStmt;

  constructor(private readonly db: DB) {
    this.insertStmt = db.prepare(`INSERT OR IGNORE INTO webhook_events (id, account_id, gateway, gateway_event_id, type, charge_id, payload, created_at, verified, flag)
      VALUES (@id, @accountId, @gateway, @gatewayEventId, @type, @chargeId, @payload, @createdAt, @verified, @flag)`);
    this.byGatewayIdStmt = db.prepare('SELECT * FROM webhook_events WHERE account_id = ? AND gateway = ? AND gateway_event_id = ?');
    this.byIdStmt = db.prepare('SELECT * FROM webhook_events WHERE id = ? AND account_id = ?');
    // The charge's gateway id (unique per gateway, charges_gateway_external_id), and any other gateway id it got in
    // charge_native_ids (keyed by the id first: a webhook names no account). UNION ALL, not UNION: onlyCharge dedupes,
    // without a temporary B-tree per notification. The first branch gives at most one charge and the second
    // distinct ones (one per account), so at most one row repeats: three rows are enough to know it is not one.
    this.chargeByExternalStmt = db.prepare(`SELECT ${eventChargeColumns('charges')} FROM charges WHERE gateway = @gateway AND external_id = @externalId
      UNION ALL SELECT ${eventChargeColumns('c')} FROM charge_native_ids n JOIN charges c ON c.id = n.charge_id WHERE n.native_id = @externalId AND c.gateway = @gateway
      LIMIT 3`);
    this.chargeByExternalInAccountStmt = db.prepare(`SELECT ${eventChargeColumns('charges')} FROM charges WHERE gateway = @gateway AND external_id = @externalId AND account_id = @accountId
      UNION ALL SELECT ${eventChargeColumns('c')} FROM charge_native_ids n JOIN charges c ON c.id = n.charge_id
        WHERE n.native_id = @externalId AND n.account_id = @accountId AND c.gateway = @gateway
      LIMIT 3`);
    this.chargeByIdStmt = db.prepare(`SELECT ${eventChargeColumns('charges')} FROM charges WHERE id = ? AND gateway = ?`);
  }

  /** false when the event is there already (a duplicate): nothing is written. */
  async insert(e: WebhookEventRecord): Promise<boolean> {
    // Object.assign, not a leading spread and a key after it (docs/performance.md, eighteenth round).
    return this.insertStmt.run(Object.assign({}, e, { verified: e.verified === null ? null : Number(e.verified), flag: e.flag ?? null })).changes === 1;
  }

  async findByGatewayId(accountId: string, gateway: string, gatewayEventId: string): Promise<WebhookEventRecord | undefined> {
    const r = this.byGatewayIdStmt.get(accountId, gateway, gatewayEventId) as Raw | undefined;
    return r && toRecord(r);
  }

  async get(accountId: string, id: string): Promise<WebhookEventRecord | undefined> {
    const r = this.byIdStmt.get(id, accountId) as Raw | undefined;
    return r && toRecord(r);
  }

  /** Newest first; `after` is the last event of the previous page. */
  async list(accountId: string, limit: number, after?: { createdAt: string; id: string }): Promise<WebhookEventRecord[]> {
    const where = after ? 'AND (created_at, id) < (@afterCreated, @afterId)' : ''; // a row value: SQLite seeks to it in the index
    const rows = this.db.prepare(`SELECT * FROM webhook_events WHERE account_id = @accountId ${where} ORDER BY created_at DESC, id DESC LIMIT @limit`)
      .all({ accountId, limit, afterCreated: after?.createdAt, afterId: after?.id }) as Raw[];
    return rows.map(toRecord);
  }

  /**
   * The charge a gateway event is about, by the gateway's id for it and by RouteGate's own id the gateway echoed:
   * only when exactly one charge at that gateway answers (in `accountId` when given; across accounts otherwise).
   */
  async findCharge(gateway: string, externalIdIn: unknown, referenceIn: unknown, accountId?: string): Promise<EventCharge | undefined> {
    // Ids read from a notification's body: anything but a short string or a whole number finds nothing, before SQL.
    const externalId = lookupKey(externalIdIn);
    const reference = lookupKey(referenceIn);
    type Row = Parameters<typeof eventChargeOf>[0];
    const toCharge = eventChargeOf;
    const byExternal = !externalId ? []
      : ((accountId ? this.chargeByExternalInAccountStmt.all({ gateway, externalId, accountId }) : this.chargeByExternalStmt.all({ gateway, externalId })) as Row[]).map(toCharge);
    const byId = reference ? this.chargeByIdStmt.get(reference, gateway) as Row | undefined : undefined;
    const byReference = byId && (!accountId || byId.account_id === accountId) ? [toCharge(byId)] : [];
    return onlyCharge(byExternal, byReference);
  }
}

/**
 * An id read from a notification's body, fit to look a charge up by: a non-empty string of at most 255 characters
 * (a whole-number id as its digits); anything else (an object, an array, a boolean: whatever a sender put there)
 * finds nothing instead of reaching SQL.
 */
export function lookupKey(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? String(value) : undefined;
  return typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : undefined;
}
