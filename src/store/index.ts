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

/** The repositories over one SQLite file. */
export class Store {
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
  private readonly group: GroupCommit;

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
    this.signingSecrets = new SigningSecretsRepository(db);
    this.logins = new LoginsRepository(db);
    this.sessions = new SessionsRepository(db);
    this.chargeStats = new ChargeStatsRepository(db);
    this.group = new GroupCommit(db);
  }

  /** Run synchronous repository writes in a transaction shared with this event-loop turn's other writes. */
  commit(write: () => void): Promise<void> {
    return this.group.commit(write);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export function openStore(file: string): Store {
  return new Store(openDatabase(file));
}
