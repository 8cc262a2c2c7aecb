import { eventChargeColumns, eventChargeOf, lookupKey, onlyCharge, type EventCharge, type WebhookEventRecord } from '../webhook-events';
import type { Queryable } from './queryable';

interface Raw {
  id: string; account_id: string; gateway: string; gateway_event_id: string; type: string; charge_id: string | null; payload: string; created_at: string;
  verified: number | string | null; flag: string | null;
}

const toRecord = (r: Raw): WebhookEventRecord => ({
  id: r.id, accountId: r.account_id, gateway: r.gateway, gatewayEventId: r.gateway_event_id, type: r.type, chargeId: r.charge_id, payload: r.payload, createdAt: r.created_at,
  verified: r.verified === null ? null : Number(r.verified) === 1, flag: r.flag ?? null,
});

const COLUMNS = 'id, account_id, gateway, gateway_event_id, type, charge_id, payload, created_at, verified, flag';

const SQL = {
  // SQLite's INSERT OR IGNORE: a second event with the same (account, gateway, gateway event id) writes nothing.
  insert: `INSERT INTO webhook_events (id, account_id, gateway, gateway_event_id, type, charge_id, payload, created_at, verified, flag)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
  byGatewayId: `SELECT ${COLUMNS} FROM webhook_events WHERE account_id = $1 AND gateway = $2 AND gateway_event_id = $3`,
  byId: `SELECT ${COLUMNS} FROM webhook_events WHERE id = $1 AND account_id = $2`,
  list: `SELECT ${COLUMNS} FROM webhook_events WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
  // A row value: PostgreSQL seeks to it in webhook_events_account_created.
  listAfter: `SELECT ${COLUMNS} FROM webhook_events WHERE account_id = $1 AND (created_at, id) < ($3, $4) ORDER BY created_at DESC, id DESC LIMIT $2`,
  // The charge's gateway id (unique per gateway, charges_gateway_external_id), and any other gateway id it got in
  // charge_native_ids (keyed by the id first: a webhook names no account). Two rows are enough to know it is not one.
  chargeByExternal: `SELECT ${eventChargeColumns('charges')} FROM charges WHERE gateway = $1 AND external_id = $2
    UNION SELECT ${eventChargeColumns('c')} FROM charge_native_ids n JOIN charges c ON c.id = n.charge_id WHERE n.native_id = $2 AND c.gateway = $1
    LIMIT 2`,
  chargeByExternalInAccount: `SELECT ${eventChargeColumns('charges')} FROM charges WHERE gateway = $1 AND external_id = $2 AND account_id = $3
    UNION SELECT ${eventChargeColumns('c')} FROM charge_native_ids n JOIN charges c ON c.id = n.charge_id WHERE n.native_id = $2 AND n.account_id = $3 AND c.gateway = $1
    LIMIT 2`,
  chargeById: `SELECT ${eventChargeColumns('charges')} FROM charges WHERE id = $1 AND gateway = $2`,
};

/** Gateway events as RouteGate events (PostgreSQL; the contract of WebhookEventsRepository, asynchronous). */
export class PgWebhookEventsRepository {
  constructor(private readonly q: Queryable) {}

  /** false when the event is there already (a duplicate): nothing is written. */
  async insert(e: WebhookEventRecord): Promise<boolean> {
    const values = [e.id, e.accountId, e.gateway, e.gatewayEventId, e.type, e.chargeId, e.payload, e.createdAt, e.verified === null ? null : Number(e.verified), e.flag ?? null];
    const res = await this.q.query({ name: 'webhookEvents.insert', text: SQL.insert, values });
    return res.rowCount === 1;
  }

  async findByGatewayId(accountId: string, gateway: string, gatewayEventId: string): Promise<WebhookEventRecord | undefined> {
    const { rows } = await this.q.query<Raw>({ name: 'webhookEvents.byGatewayId', text: SQL.byGatewayId, values: [accountId, gateway, gatewayEventId] });
    return rows[0] && toRecord(rows[0]);
  }

  async get(accountId: string, id: string): Promise<WebhookEventRecord | undefined> {
    const { rows } = await this.q.query<Raw>({ name: 'webhookEvents.byId', text: SQL.byId, values: [id, accountId] });
    return rows[0] && toRecord(rows[0]);
  }

  /** Newest first; `after` is the last event of the previous page. */
  async list(accountId: string, limit: number, after?: { createdAt: string; id: string }): Promise<WebhookEventRecord[]> {
    const { rows } = after
      ? await this.q.query<Raw>({ name: 'webhookEvents.listAfter', text: SQL.listAfter, values: [accountId, limit, after.createdAt, after.id] })
      : await this.q.query<Raw>({ name: 'webhookEvents.list', text: SQL.list, values: [accountId, limit] });
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
    let byExternal: EventCharge[] = [];
    if (externalId) {
      const { rows } = accountId
        ? await this.q.query<Row>({ name: 'webhookEvents.chargeByExternalInAccount', text: SQL.chargeByExternalInAccount, values: [gateway, externalId, accountId] })
        : await this.q.query<Row>({ name: 'webhookEvents.chargeByExternal', text: SQL.chargeByExternal, values: [gateway, externalId] });
      byExternal = rows.map(toCharge);
    }
    const byId = reference ? (await this.q.query<Row>({ name: 'webhookEvents.chargeById', text: SQL.chargeById, values: [reference, gateway] })).rows[0] : undefined;
    const byReference = byId && (!accountId || byId.account_id === accountId) ? [toCharge(byId)] : [];
    return onlyCharge(byExternal, byReference);
  }
}
