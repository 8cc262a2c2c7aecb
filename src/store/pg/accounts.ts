import { nowIso } from '../db';
import { clock } from '../../lib/clock';
import { type AccountRow, type RawSettings, type SettingsRow, installmentsColumn, pickGatewaySettings, toSettings } from '../accounts';
import { atomically, type Queryable } from './queryable';
import { notifySql } from './change-feed';
import { cachedRead, type PgReadCaches, writeThrough } from './read-caches';

interface RawAccount { id: string; name: string; email: string; active: number | string; webhook_token: string; compat_passthrough: number | string; created_at: string; updated_at: string }

const ACCOUNT_COLUMNS = 'id, name, email, active, webhook_token, compat_passthrough, created_at, updated_at';

function toAccount(r: RawAccount): AccountRow {
  return { id: r.id, name: r.name, email: r.email, active: Number(r.active) === 1, webhookToken: r.webhook_token, compatPassthrough: Number(r.compat_passthrough) === 1, createdAt: r.created_at, updatedAt: r.updated_at };
}

const SQL = {
  // One statement: the account and its settings row commit together, with the notification.
  create: `WITH a AS (INSERT INTO accounts (id, name, email, active, webhook_token, created_at, updated_at) VALUES ($1, $2, $3, 1, $4, $5, $5)
      RETURNING ${ACCOUNT_COLUMNS}),
    s AS (INSERT INTO settings (account_id, gateway_fallbacks, response_format, updated_at) SELECT id, '[]', 'full', $5 FROM a)
    SELECT a.*, ${notifySql('accounts')} FROM a`,
  byId: `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`,
  byWebhookToken: `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE webhook_token = $1`,
  byOverlapToken: `SELECT ${ACCOUNT_COLUMNS.split(', ').map((c) => `a.${c}`).join(', ')} FROM webhook_token_overlaps o JOIN accounts a ON a.id = o.account_id
    WHERE o.token = $1 AND o.expires_at > $2`,
  setToken: `UPDATE accounts SET webhook_token = $1, updated_at = $2 WHERE id = $3 AND webhook_token = $4 RETURNING ${notifySql('accounts')}`,
  keepToken: 'INSERT INTO webhook_token_overlaps (token, account_id, expires_at) VALUES ($1, $2, $3)',
  dropOverlaps: 'DELETE FROM webhook_token_overlaps WHERE account_id = $1 OR expires_at <= $2',
  setPassthrough: `UPDATE accounts SET compat_passthrough = $1, updated_at = $2 WHERE id = $3 RETURNING ${notifySql('accounts')}`,
  all: `SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id`,
  setActive: `UPDATE accounts SET active = $1, updated_at = $2 WHERE id = $3 RETURNING ${notifySql('accounts')}`,
  settingsById: `SELECT primary_gateway, gateway_fallbacks, compatibility_mode, response_format, webhook_forward_url, gateway_settings, orphan_policy, installments
    FROM settings WHERE account_id = $1`,
  saveSettings: `UPDATE settings SET primary_gateway = $1, gateway_fallbacks = $2, compatibility_mode = $3, response_format = $4, webhook_forward_url = $5,
    gateway_settings = $6, updated_at = $7, orphan_policy = $9, installments = $10 WHERE account_id = $8 RETURNING ${notifySql('settings')}`,
  compatModeForUpdate: 'SELECT compatibility_mode FROM settings WHERE account_id = $1 FOR UPDATE',
  // Waits for every transaction writing charges to end and holds new ones until this one commits (see saveSettings).
  holdChargeWriters: 'LOCK TABLE charges IN SHARE MODE',
  // The refs ids and the gateway's own id (as the SQLite store's INDEX_COMPAT_IDS_SQL).
  indexCompatIds: `INSERT INTO charge_native_ids (account_id, native_id, charge_id)
    SELECT c.account_id, j.value #>> '{}', c.id FROM charges c, jsonb_each(c.refs::jsonb) j
    WHERE c.account_id = $1 AND c.gateway = $2 AND c.refs IS NOT NULL AND jsonb_typeof(j.value) = 'string' AND j.value #>> '{}' <> ''
    UNION ALL
    SELECT c.account_id, c.external_id, c.id FROM charges c
    WHERE c.account_id = $1 AND c.gateway = $2 AND c.external_id IS NOT NULL AND c.external_id <> ''
    ON CONFLICT DO NOTHING`,
};

/** Accounts and their settings (PostgreSQL; the contract of AccountsRepository, asynchronous). */
export class PgAccountsRepository {
  constructor(private readonly q: Queryable, private readonly shared: Pick<PgReadCaches, 'feed' | 'accounts' | 'settings'>) {}

  async create(a: { id: string; name: string; email: string; webhookToken: string }): Promise<AccountRow> {
    const { rows } = await writeThrough(this.shared.feed, () =>
      this.q.query<RawAccount>({ name: 'accounts.create', text: SQL.create, values: [a.id, a.name, a.email, a.webhookToken, nowIso()] }));
    return toAccount(rows[0]);
  }

  /** Read on every authenticated request: cached until any write (see ReadCache, PgChangeFeed; cachedRead). */
  async get(id: string): Promise<AccountRow | undefined> {
    return cachedRead(this.q, this.shared.accounts, id, async () => {
      const { rows } = await this.q.query<RawAccount>({ name: 'accounts.byId', text: SQL.byId, values: [id] });
      return rows[0] && toAccount(rows[0]);
    });
  }

  /** The account whose current token this is, or whose rotated token still overlaps at `now` (ms). */
  async getByWebhookToken(token: string, now = clock.now()): Promise<AccountRow | undefined> {
    const { rows } = await this.q.query<RawAccount>({ name: 'accounts.byWebhookToken', text: SQL.byWebhookToken, values: [token] });
    if (rows[0]) return toAccount(rows[0]);
    const kept = await this.q.query<RawAccount>({ name: 'accounts.byOverlapToken', text: SQL.byOverlapToken, values: [token, now] });
    return kept.rows[0] && toAccount(kept.rows[0]);
  }

  /** As AccountsRepository.rotateWebhookToken: the replaced token kept until `keepUntil`, or every old one dropped. */
  async rotateWebhookToken(id: string, previous: string, next: string, keepUntil: number | null, now = clock.now()): Promise<boolean> {
    return writeThrough(this.shared.feed, () => atomically(this.q, async (tx) => {
      const res = await tx.query({ name: 'accounts.setToken', text: SQL.setToken, values: [next, nowIso(), id, previous] });
      if (res.rowCount !== 1) return false;
      if (keepUntil === null) await tx.query({ name: 'accounts.dropOverlaps', text: SQL.dropOverlaps, values: [id, now] });
      else await tx.query({ name: 'accounts.keepToken', text: SQL.keepToken, values: [previous, id, keepUntil] });
      return true;
    }));
  }

  /** Operator only (CLI, operator dashboard): compatibility passthrough for this account. */
  async setCompatPassthrough(id: string, on: boolean): Promise<boolean> {
    const res = await writeThrough(this.shared.feed, () =>
      this.q.query({ name: 'accounts.setPassthrough', text: SQL.setPassthrough, values: [on ? 1 : 0, nowIso(), id] }));
    return res.rowCount === 1;
  }

  async list(): Promise<AccountRow[]> {
    const { rows } = await this.q.query<RawAccount>({ name: 'accounts.all', text: SQL.all });
    return rows.map(toAccount);
  }

  async setActive(id: string, active: boolean): Promise<boolean> {
    const res = await writeThrough(this.shared.feed, () =>
      this.q.query({ name: 'accounts.setActive', text: SQL.setActive, values: [active ? 1 : 0, nowIso(), id] }));
    return res.rowCount === 1;
  }

  async settings(id: string): Promise<SettingsRow> {
    return (await cachedRead(this.q, this.shared.settings, id, () => this.readSettings(id)))!;
  }

  private async readSettings(id: string): Promise<SettingsRow> {
    const { rows } = await this.q.query<RawSettings>({ name: 'accounts.settingsById', text: SQL.settingsById, values: [id] });
    return toSettings(rows[0]);
  }

  /**
   * The settings, and when the compatibility mode is turned to a gateway, the gateway ids of the account's charges at
   * that gateway indexed in the same transaction (a settle indexes its refs ids, and a gateway's id its webhooks do
   * not need, only while the mode is its charge's gateway,
   * reading the mode in its own statement: PgChargesRepository). Settles run concurrently here, so before the
   * backfill this transaction waits for every transaction writing charges to end and holds new ones until it
   * commits: a settle that read the old mode has committed before the backfill reads, and one held back reads the
   * new mode. A rare operator action; only a change of mode takes the lock.
   */
  async saveSettings(id: string, s: SettingsRow): Promise<void> {
    const values = [s.primaryGateway, JSON.stringify(s.gatewayFallbacks), s.compatibilityMode, s.responseFormat, s.webhookForwardUrl, JSON.stringify(pickGatewaySettings(s)), nowIso(), id, s.orphanPolicy ?? 'refund', installmentsColumn(s)];
    await writeThrough(this.shared.feed, () => atomically(this.q, async (tx) => {
      const { rows } = await tx.query<{ compatibility_mode: string | null }>(SQL.compatModeForUpdate, [id]);
      const turnedOn = s.compatibilityMode !== null && rows[0] !== undefined && rows[0].compatibility_mode !== s.compatibilityMode;
      if (turnedOn) await tx.query(SQL.holdChargeWriters);
      await tx.query({ name: 'accounts.saveSettings', text: SQL.saveSettings, values });
      if (turnedOn) await tx.query(SQL.indexCompatIds, [id, s.compatibilityMode]);
    }));
  }
}

