import { DEFAULT_INSTALLMENT_SETTINGS, type InstallmentSettings } from '../installments/price-table';
import type { DB } from './db';
import { clock } from '../lib/clock';
import { nowIso } from './db';
import { ReadCache, type ExternalWrites } from './read-cache';
import { gatewaySettingDefaults, gatewaySettingNames } from '../gateways/account-settings';

export interface AccountRow {
  id: string;
  name: string;
  email: string;
  active: boolean;
  webhookToken: string;
  /** Compatibility passthrough, set by an operator only (issue 40): off unless turned on. */
  compatPassthrough: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SettingsRow {
  primaryGateway: string | null;
  gatewayFallbacks: string[];
  compatibilityMode: string | null;
  responseFormat: 'full' | 'normalized' | 'raw';
  webhookForwardUrl: string | null;
  /**
   * A payment found at another gateway with a charge's reference (an orphan): `refund` voids or refunds it at once,
   * `notify` only announces it (payment.orphaned). docs/charges.md, "Orphans".
   */
  orphanPolicy: 'refund' | 'notify';
  /** The account's installment plans (docs/installments.md); the defaults until the account sets them. */
  installments: InstallmentSettings;
  /** The settings gateways declare for themselves (descriptor.accountSettings), flattened beside these. */
  [gatewaySetting: string]: unknown;
}

const CORE_SETTINGS = { primaryGateway: null, gatewayFallbacks: [], compatibilityMode: null, responseFormat: 'full', webhookForwardUrl: null, orphanPolicy: 'refund' } as const;

export function defaultSettings(): SettingsRow {
  return { ...CORE_SETTINGS, gatewayFallbacks: [], installments: { ...DEFAULT_INSTALLMENT_SETTINGS }, ...gatewaySettingDefaults() };
}

interface RawAccount { id: string; name: string; email: string; active: number; webhook_token: string; compat_passthrough: number; created_at: string; updated_at: string }
/** A settings row as both stores return it. */
export interface RawSettings {
  primary_gateway: string | null; gateway_fallbacks: string; compatibility_mode: string | null; response_format: string; webhook_forward_url: string | null;
  gateway_settings: string; orphan_policy?: string | null; installments?: string | null;
}

function toAccount(r: RawAccount): AccountRow {
  return { id: r.id, name: r.name, email: r.email, active: r.active === 1, webhookToken: r.webhook_token, compatPassthrough: r.compat_passthrough === 1, createdAt: r.created_at, updatedAt: r.updated_at };
}

/** Accounts and their settings. */
export class AccountsRepository {
  private readonly insertAccount;
  private readonly insertSettings;
  private readonly byId;
  private readonly byWebhookToken;
  private readonly byOverlapToken;
  private readonly setTokenStmt;
  private readonly keepTokenStmt;
  private readonly dropOverlapsStmt;
  private readonly setPassthroughStmt;
  private readonly all;
  private readonly setActiveStmt;
  private readonly settingsById;
  private readonly updateSettingsStmt;
  private readonly compatModeStmt;
  private readonly indexCompatIdsStmt;

  private readonly accountCache: ReadCache<AccountRow>;
  private readonly settingsCache: ReadCache<SettingsRow>;
  // Every notification to an account's URL names its current token: the account it belongs to, cached as the
  // account is (a rotation here or from another connection empties it). A token kept after a rotation is not.
  private readonly currentTokenCache: ReadCache<AccountRow>;

  constructor(private readonly db: DB, external: ExternalWrites) {
    this.accountCache = new ReadCache(external);
    this.currentTokenCache = new ReadCache(external);
    this.settingsCache = new ReadCache(external);
    this.insertAccount = db.prepare('INSERT INTO accounts (id, name, email, active, webhook_token, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?, ?)');
    this.insertSettings = db.prepare("INSERT INTO settings (account_id, gateway_fallbacks, response_format, updated_at) VALUES (?, '[]', 'full', ?)");
    this.byId = db.prepare('SELECT * FROM accounts WHERE id = ?');
    this.byWebhookToken = db.prepare('SELECT * FROM accounts WHERE webhook_token = ?');
    this.byOverlapToken = db.prepare('SELECT a.* FROM webhook_token_overlaps o JOIN accounts a ON a.id = o.account_id WHERE o.token = ? AND o.expires_at > ?');
    this.setTokenStmt = db.prepare('UPDATE accounts SET webhook_token = ?, updated_at = ? WHERE id = ? AND webhook_token = ?');
    this.keepTokenStmt = db.prepare('INSERT INTO webhook_token_overlaps (token, account_id, expires_at) VALUES (?, ?, ?)');
    this.dropOverlapsStmt = db.prepare('DELETE FROM webhook_token_overlaps WHERE account_id = ? OR expires_at <= ?');
    this.setPassthroughStmt = db.prepare('UPDATE accounts SET compat_passthrough = ?, updated_at = ? WHERE id = ?');
    this.all = db.prepare('SELECT * FROM accounts ORDER BY created_at, id');
    this.setActiveStmt = db.prepare('UPDATE accounts SET active = ?, updated_at = ? WHERE id = ?');
    this.settingsById = db.prepare('SELECT * FROM settings WHERE account_id = ?');
    this.updateSettingsStmt = db.prepare(
      'UPDATE settings SET primary_gateway = ?, gateway_fallbacks = ?, compatibility_mode = ?, response_format = ?, webhook_forward_url = ?, gateway_settings = ?, orphan_policy = ?, installments = ?, updated_at = ? WHERE account_id = ?',
    );
    this.compatModeStmt = db.prepare('SELECT compatibility_mode FROM settings WHERE account_id = ?').pluck();
    this.indexCompatIdsStmt = db.prepare(INDEX_COMPAT_IDS_SQL);
  }

  async create(a: { id: string; name: string; email: string; webhookToken: string }): Promise<AccountRow> {
    this.forget();
    const now = nowIso();
    this.insertAccount.run(a.id, a.name, a.email, a.webhookToken, now, now);
    this.insertSettings.run(a.id, now);
    return (await this.get(a.id))!;
  }

  /** Read on every authenticated request: cached until any write (see ReadCache). */
  async get(id: string): Promise<AccountRow | undefined> {
    return this.accountCache.get(id, () => {
      const r = this.byId.get(id) as RawAccount | undefined;
      return r && toAccount(r);
    });
  }

  /** The account whose current token this is, or whose rotated token still overlaps at `now` (ms). */
  async getByWebhookToken(token: string, now = clock.now()): Promise<AccountRow | undefined> {
    const current = this.currentTokenCache.get(token, () => {
      const r = this.byWebhookToken.get(token) as RawAccount | undefined;
      return r && toAccount(r);
    });
    if (current) return current;
    const r = this.byOverlapToken.get(token, now) as RawAccount | undefined;
    return r && toAccount(r);
  }

  /**
   * The account's webhook token replaced by `next`; the one it replaces keeps working until `keepUntil` (ms), or
   * stops at once with every earlier one when null. False when the account is gone or its token changed meanwhile.
   */
  async rotateWebhookToken(id: string, previous: string, next: string, keepUntil: number | null, now = clock.now()): Promise<boolean> {
    this.forget();
    return this.db.transaction(() => {
      if (this.setTokenStmt.run(next, nowIso(), id, previous).changes !== 1) return false;
      if (keepUntil === null) this.dropOverlapsStmt.run(id, now);
      else this.keepTokenStmt.run(previous, id, keepUntil);
      return true;
    })();
  }

  /** Operator only (CLI, operator dashboard): compatibility passthrough for this account. */
  async setCompatPassthrough(id: string, on: boolean): Promise<boolean> {
    this.forget();
    return this.setPassthroughStmt.run(on ? 1 : 0, nowIso(), id).changes === 1;
  }

  async list(): Promise<AccountRow[]> {
    return (this.all.all() as RawAccount[]).map(toAccount);
  }

  async setActive(id: string, active: boolean): Promise<boolean> {
    this.forget();
    return this.setActiveStmt.run(active ? 1 : 0, nowIso(), id).changes === 1;
  }

  async settings(id: string): Promise<SettingsRow> {
    return this.settingsCache.get(id, () => this.readSettings(id))!;
  }

  private forget(): void {
    this.accountCache.clear();
    this.currentTokenCache.clear();
    this.settingsCache.clear();
  }

  private readSettings(id: string): SettingsRow {
    return toSettings(this.settingsById.get(id) as RawSettings | undefined);
  }

  /**
   * The settings, and when the compatibility mode is turned to a gateway, the gateway ids of the account's charges at
   * that gateway indexed in the same transaction (charges index their refs ids, and a gateway's id its webhooks do
   * not need, only while the mode is their gateway: ChargesRepository.compatModeIsGateway). One writer at a time: every
   * settle comes before this or sees the new mode.
   */
  async saveSettings(id: string, s: SettingsRow): Promise<void> {
    this.forget();
    const save = (): void => {
      const current = this.compatModeStmt.get(id) as string | null | undefined; // undefined: no settings row
      const turnedOn = s.compatibilityMode !== null && current !== undefined && current !== s.compatibilityMode;
      this.updateSettingsStmt.run(s.primaryGateway, JSON.stringify(s.gatewayFallbacks), s.compatibilityMode, s.responseFormat, s.webhookForwardUrl, JSON.stringify(pickGatewaySettings(s)), s.orphanPolicy ?? 'refund', installmentsColumn(s), nowIso(), id);
      if (turnedOn) this.indexCompatIdsStmt.run({ account: id, gateway: s.compatibilityMode });
    };
    if (this.db.inTransaction) save(); else this.db.transaction(save)();
  }
}

/**
 * The gateway ids of an account's charges at a gateway (parameters: @account, @gateway), indexed for findByAnyId when
 * the account's compatibility mode turns to that gateway: the ids in refs, and the gateway's own id, which a gateway
 * whose webhooks name the charge did not need indexed before (ChargesRepository.indexNativeIds).
 */
const INDEX_COMPAT_IDS_SQL = `INSERT OR IGNORE INTO charge_native_ids (native_id, account_id, charge_id)
  SELECT j.value, c.account_id, c.id FROM charges c, json_each(c.refs) j
  WHERE c.account_id = @account AND c.gateway = @gateway AND c.refs IS NOT NULL AND j.type = 'text' AND j.value <> ''
  UNION ALL
  SELECT c.external_id, c.account_id, c.id FROM charges c
  WHERE c.account_id = @account AND c.gateway = @gateway AND c.external_id IS NOT NULL AND c.external_id <> ''`;

/** The gateway-declared settings, as stored in the gateway_settings JSON column (both stores). */
export function pickGatewaySettings(s: SettingsRow): Record<string, unknown> {
  return Object.fromEntries(gatewaySettingNames().filter((n) => s[n] !== undefined).map((n) => [n, s[n]]));
}

/** The installments column (both stores): NULL while the account keeps the defaults. */
export function installmentsColumn(s: SettingsRow): string | null {
  const i = s.installments;
  if (!i) return null;
  const d = DEFAULT_INSTALLMENT_SETTINGS;
  const isDefault = i.maxCount === d.maxCount && i.interestFreeCount === d.interestFreeCount && i.monthlyInterestRate === d.monthlyInterestRate && i.minInstallmentAmount === d.minInstallmentAmount;
  return isDefault ? null : JSON.stringify(i);
}

/** A settings row as the API sees it: the defaults when there is none, gateway settings flattened beside the core ones (both stores). */
export function toSettings(r: RawSettings | undefined): SettingsRow {
  if (!r) return defaultSettings();
  const declared = gatewaySettingDefaults();
  const stored = JSON.parse(r.gateway_settings) as Record<string, unknown>;
  for (const name of Object.keys(declared)) if (Object.hasOwn(stored, name)) declared[name] = stored[name];
  return {
    ...declared,
    primaryGateway: r.primary_gateway,
    gatewayFallbacks: JSON.parse(r.gateway_fallbacks),
    compatibilityMode: r.compatibility_mode,
    responseFormat: r.response_format as SettingsRow['responseFormat'],
    webhookForwardUrl: r.webhook_forward_url,
    orphanPolicy: r.orphan_policy === 'notify' ? 'notify' : 'refund',
    installments: r.installments ? { ...DEFAULT_INSTALLMENT_SETTINGS, ...(JSON.parse(r.installments) as Partial<InstallmentSettings>) } : { ...DEFAULT_INSTALLMENT_SETTINGS },
  };
}
