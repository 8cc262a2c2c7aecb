import type pg from 'pg';
import type { Repositories, Store } from '../types';
import { createPgPool } from './pool';
import { migratePg } from './migrate';
import { PgChangeFeed } from './change-feed';
import { createPgReadCaches, type PgReadCaches } from './read-caches';
import { atomically, type Queryable } from './queryable';
import { PgAccountsRepository } from './accounts';
import { PgApiKeysRepository } from './api-keys';
import { PgCredentialsRepository } from './credentials';
import { PgMetaRepository } from './meta';
import { PgChargesRepository, type PgChargesShared } from './charges';
import { ChargeSnapshots } from './charge-snapshots';
import { chargeBatches } from './charge-batches';
import { PgCustomersRepository } from './customers';
import { PgCoproducersRepository } from './coproducers';
import { PgIdempotencyRepository } from './idempotency';
import { PgWebhookEventsRepository } from './webhook-events';
import { PgDeliveriesRepository } from './deliveries';
import { PgSigningSecretsRepository } from './signing-secrets';
import { PgLoginsRepository } from './logins';
import { PgSessionsRepository } from './sessions';
import { PgChargeStatsRepository } from './charge-stats';
import { PgInstallmentQuotesRepository } from './installment-quotes';

/** The repositories over one Queryable: the pool (each statement its own transaction) or a transaction's client. */
function bind(q: Queryable, caches: PgReadCaches, charges: PgChargesShared): Repositories {
  return {
    accounts: new PgAccountsRepository(q, caches),
    apiKeys: new PgApiKeysRepository(q, caches),
    credentials: new PgCredentialsRepository(q, caches),
    meta: new PgMetaRepository(q),
    charges: new PgChargesRepository(q, charges),
    customers: new PgCustomersRepository(q),
    coproducers: new PgCoproducersRepository(q),
    idempotency: new PgIdempotencyRepository(q),
    webhookEvents: new PgWebhookEventsRepository(q),
    deliveries: new PgDeliveriesRepository(q),
    signingSecrets: new PgSigningSecretsRepository(q),
    logins: new PgLoginsRepository(q),
    sessions: new PgSessionsRepository(q),
    chargeStats: new PgChargeStatsRepository(q),
    installmentQuotes: new PgInstallmentQuotesRepository(q),
  };
}

/**
 * The store on PostgreSQL (DATABASE_URL): one pool per process, the numbered migrations applied under an advisory
 * lock at open, read caches invalidated across processes by LISTEN/NOTIFY (PgChangeFeed), and `commit` as one
 * transaction on one client of the pool.
 */
export class PgStore implements Store {
  readonly dialect = 'postgres' as const;
  readonly accounts; readonly apiKeys; readonly credentials; readonly meta; readonly charges; readonly customers;
  readonly coproducers; readonly idempotency; readonly webhookEvents; readonly deliveries; readonly signingSecrets;
  readonly logins; readonly sessions; readonly chargeStats; readonly installmentQuotes;
  private closed = false;

  private constructor(private readonly pool: pg.Pool, private readonly feed: PgChangeFeed, private readonly caches: PgReadCaches, private readonly chargesShared: PgChargesShared) {
    const r = bind(pool, caches, chargesShared);
    this.accounts = r.accounts; this.apiKeys = r.apiKeys; this.credentials = r.credentials; this.meta = r.meta; this.charges = r.charges;
    this.customers = r.customers; this.coproducers = r.coproducers; this.idempotency = r.idempotency; this.webhookEvents = r.webhookEvents;
    this.deliveries = r.deliveries; this.signingSecrets = r.signingSecrets; this.logins = r.logins; this.sessions = r.sessions;
    this.chargeStats = r.chargeStats; this.installmentQuotes = r.installmentQuotes;
  }

  static async open(url: string, opts: { max?: number } = {}): Promise<PgStore> {
    const pool = createPgPool(url, { max: opts.max, applicationName: 'routegate' });
    try {
      await migratePg(pool);
      const feed = PgChangeFeed.fromPool(pool);
      await feed.start();
      const shared: PgChargesShared = { snapshots: new ChargeSnapshots() };
      shared.batches = chargeBatches(pool, () => shared.gatewaysNamingChargeId ?? new Set());
      return new PgStore(pool, feed, createPgReadCaches(feed), shared);
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
  }

  async commit(write: (tx: Repositories) => void | Promise<void>): Promise<void> {
    // The transaction's repositories bump through this when they write a cached table (writeThrough).
    let wroteCached = false;
    const feed = { current: () => this.feed.current(), bump: () => { wroteCached = true; this.feed.bump(); } };
    try {
      await atomically(this.pool, async (client) => {
        await write(bind(client, { ...this.caches, feed }, this.chargesShared));
      });
    } finally {
      // After a write to a cached table, this process's caches drop at once, not when its own notification comes
      // back. Other transactions (every charge commits twice) leave them alone: emptied on every commit, the
      // caches would never serve a read under load.
      if (wroteCached) this.feed.bump();
    }
  }

  writeOne<T>(write: (repositories: Repositories) => Promise<T>): Promise<T> {
    return write(this);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async probeWrite(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("INSERT INTO meta (key, value) VALUES ('ready_probe', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [new Date().toISOString()]);
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }

  async query(sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
    let n = 0;
    return (await this.pool.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows;
  }

  get open(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.feed.close();
    await this.pool.end();
  }
}
