import { openDatabase, type DB } from './db';
import { AccountsRepository } from './accounts';
import { ApiKeysRepository } from './api-keys';
import { CredentialsRepository } from './credentials';
import { MetaRepository } from './meta';
import { ChargesRepository } from './charges';
import { CustomersRepository } from './customers';
import { CoproducersRepository } from './coproducers';
import { IdempotencyRepository } from './idempotency';
import { WebhookEventsRepository } from './webhook-events';
import { DeliveriesRepository } from './deliveries';
import { SigningSecretsRepository } from './signing-secrets';
import { GroupCommit } from './group-commit';
import { ExternalWrites } from './read-cache';
import { LoginsRepository } from './logins';
import { SessionsRepository } from './sessions';
import { ChargeStatsRepository } from './charge-stats';
import { InstallmentQuotesRepository } from './installment-quotes';
import { Checkpointer } from './checkpointer';
import type { Repositories, Store } from './types';

export type { Public, Repositories, Store } from './types';

/** The repositories over one SQLite file. */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly accounts: AccountsRepository;
  readonly apiKeys: ApiKeysRepository;
  readonly credentials: CredentialsRepository;
  readonly meta: MetaRepository;
  readonly charges: ChargesRepository;
  readonly customers: CustomersRepository;
  readonly coproducers: CoproducersRepository;
  readonly idempotency: IdempotencyRepository;
  readonly webhookEvents: WebhookEventsRepository;
  readonly deliveries: DeliveriesRepository;
  readonly signingSecrets: SigningSecretsRepository;
  readonly logins: LoginsRepository;
  readonly sessions: SessionsRepository;
  readonly chargeStats: ChargeStatsRepository;
  readonly installmentQuotes: InstallmentQuotesRepository;
  private readonly group: GroupCommit;
  private readonly pingStmt;
  private readonly probeStmt;
  private checkpointer: Checkpointer | undefined;

  constructor(readonly db: DB) {
    const external = new ExternalWrites(db);
    this.accounts = new AccountsRepository(db, external);
    this.apiKeys = new ApiKeysRepository(db, external);
    this.credentials = new CredentialsRepository(db, external);
    this.meta = new MetaRepository(db);
    this.charges = new ChargesRepository(db);
    this.customers = new CustomersRepository(db);
    this.coproducers = new CoproducersRepository(db);
    this.idempotency = new IdempotencyRepository(db);
    this.webhookEvents = new WebhookEventsRepository(db);
    this.deliveries = new DeliveriesRepository(db);
    this.signingSecrets = new SigningSecretsRepository(db, external);
    this.logins = new LoginsRepository(db);
    this.sessions = new SessionsRepository(db);
    this.chargeStats = new ChargeStatsRepository(db);
    this.installmentQuotes = new InstallmentQuotesRepository(db);
    this.group = new GroupCommit(db, this);
    this.pingStmt = db.prepare('SELECT 1');
    this.probeStmt = db.prepare("INSERT INTO meta (key, value) VALUES ('ready_probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  }

  commit(write: (tx: Repositories) => void | Promise<void>): Promise<void> {
    return this.group.commit(write);
  }

  async writeOne<T>(write: (repositories: Repositories) => Promise<T>): Promise<T> {
    let result!: T;
    await this.group.commit(async (tx) => {
      result = await write(tx);
    });
    return result;
  }

  /** Move WAL checkpoints to a worker thread (src/store/checkpointer.ts); for the serving process, not one-off commands. */
  startCheckpointer(): void {
    if (this.checkpointer || this.db.memory || !this.db.open) return;
    this.checkpointer = Checkpointer.start(this.db);
  }

  async ping(): Promise<void> {
    this.pingStmt.get();
  }

  async probeWrite(): Promise<void> {
    // A read-only file, a full disk or a lock held elsewhere all show here rather than on the next charge.
    try {
      this.db.transaction(() => {
        this.probeStmt.run(new Date().toISOString());
        throw new ProbeRollback();
      })();
    } catch (err) {
      if (!(err instanceof ProbeRollback)) throw err;
    }
  }

  async query(sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
    return this.db.prepare(sql).all(...params) as Array<Record<string, unknown>>;
  }

  get open(): boolean {
    return this.db.open;
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }
}

class ProbeRollback extends Error {}

export function openSqliteStore(file: string, opts: { serving?: boolean } = {}): SqliteStore {
  const store = new SqliteStore(openDatabase(file));
  if (opts.serving) store.startCheckpointer();
  return store;
}
