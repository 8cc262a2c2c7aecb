import type { AccountsRepository } from './accounts';
import type { ApiKeysRepository } from './api-keys';
import type { CredentialsRepository } from './credentials';
import type { MetaRepository } from './meta';
import type { ChargesRepository } from './charges';
import type { CustomersRepository } from './customers';
import type { CoproducersRepository } from './coproducers';
import type { IdempotencyRepository } from './idempotency';
import type { WebhookEventsRepository } from './webhook-events';
import type { DeliveriesRepository } from './deliveries';
import type { SigningSecretsRepository } from './signing-secrets';
import type { LoginsRepository } from './logins';
import type { SessionsRepository } from './sessions';
import type { ChargeStatsRepository } from './charge-stats';
import type { InstallmentQuotesRepository } from './installment-quotes';

/** A repository's public methods: what both the SQLite and the PostgreSQL implementation offer. */
export type Public<T> = { [K in keyof T]: T[K] };

/** Every repository; inside `Store.commit` the same set, bound to that transaction. */
export interface Repositories {
  readonly accounts: Public<AccountsRepository>;
  readonly apiKeys: Public<ApiKeysRepository>;
  readonly credentials: Public<CredentialsRepository>;
  readonly meta: Public<MetaRepository>;
  readonly charges: Public<ChargesRepository>;
  readonly customers: Public<CustomersRepository>;
  readonly coproducers: Public<CoproducersRepository>;
  readonly idempotency: Public<IdempotencyRepository>;
  readonly webhookEvents: Public<WebhookEventsRepository>;
  readonly deliveries: Public<DeliveriesRepository>;
  readonly signingSecrets: Public<SigningSecretsRepository>;
  readonly logins: Public<LoginsRepository>;
  readonly sessions: Public<SessionsRepository>;
  readonly chargeStats: Public<ChargeStatsRepository>;
  readonly installmentQuotes: Public<InstallmentQuotesRepository>;
}

/**
 * The store: SQLite (embedded, the default) or PostgreSQL (DATABASE_URL, several processes). Every method is
 * async. Outside `commit` each call is its own statement; writes that belong together go through `commit`,
 * whose callback must only await the repositories of the `tx` it is given (no other I/O): on SQLite the whole
 * batch then runs within one turn of the event loop, so no other request's statement can land inside it.
 */
export interface Store extends Repositories {
  readonly dialect: 'sqlite' | 'postgres';
  /** Run `write` in a transaction (on SQLite, shared with this event-loop turn's other commits); resolves once committed. */
  commit(write: (tx: Repositories) => void | Promise<void>): Promise<void>;
  /**
   * One statement's write and its result, resolved once committed. On SQLite it joins the turn's group commit, as
   * `commit` does, instead of committing (and writing its pages to the WAL) on its own; on PostgreSQL it is that one
   * statement (a round trip), where `commit` would add BEGIN and COMMIT around it.
   */
  writeOne<T>(write: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Throws when the database cannot be read (liveness probe). */
  ping(): Promise<void>;
  /** Throws when the database cannot be written: a real write, rolled back (readiness probe). */
  probeWrite(): Promise<void>;
  /**
   * A raw read for operators' tooling and tests, in SQL both dialects share, with `?` placeholders. Never on a
   * request's path: the repositories are the interface.
   */
  query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** False once closed. */
  readonly open: boolean;
  close(): Promise<void>;
}
