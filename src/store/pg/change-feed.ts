import { Client, type ClientConfig, type Pool } from 'pg';

/** The channel every write to a cached table notifies, in its own statement, so it is delivered on commit. */
export const CACHE_CHANNEL = 'routegate_cache';

/** `pg_notify(...)` for a write to `table`: SQL text only, the channel and table are constants. */
export function notifySql(table: 'accounts' | 'settings' | 'api_keys' | 'credentials'): string {
  return `pg_notify('${CACHE_CHANNEL}', '${table}')`;
}

export interface PgChangeFeedOptions {
  /** A round trip on the listening connection this often proves it still receives notifications. */
  heartbeatMs?: number;
  /** Past this without a proof (a connection that died silently), the feed counts as down: nothing is cached. */
  maxSilenceMs?: number;
  /** Reconnection backoff, doubled from min to max. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Told of every failure of the listening connection (it is retried whatever this does). */
  onError?: (err: Error) => void;
}

/**
 * The cross-process version read caches compare (ReadCache): PostgreSQL's LISTEN/NOTIFY on one dedicated
 * connection, the analogue of SQLite's `data_version`. A notification from any process, or a write by this one
 * (`bump()`), gives a new number. While the connection is down, or silent past `maxSilenceMs`, every call of
 * `current()` returns a new number, so caches serve nothing; the connection is re-established with backoff.
 * Staleness bound: docs/postgres.md.
 */
export class PgChangeFeed {
  private readonly heartbeatMs: number;
  private readonly maxSilenceMs: number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private version = 0;
  private client: Client | undefined;
  /** When (monotonic clock) the last round trip that returned was sent: notifications committed before then have all arrived. */
  private provenAt = -Infinity;
  /** The connection whose heartbeat has not answered yet. */
  private awaitingHeartbeat: Client | undefined;
  private failures = 0;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(private readonly config: ClientConfig, private readonly options: PgChangeFeedOptions = {}) {
    this.heartbeatMs = options.heartbeatMs ?? 1000;
    this.maxSilenceMs = options.maxSilenceMs ?? 3000;
    this.minBackoffMs = options.minBackoffMs ?? 100;
    this.maxBackoffMs = options.maxBackoffMs ?? 5000;
    if (!(this.maxSilenceMs > this.heartbeatMs)) throw new Error('PgChangeFeed: maxSilenceMs must exceed heartbeatMs');
  }

  /** A feed on the pool's database and credentials, over a connection of its own (never one of the pool's). */
  static fromPool(pool: Pool, options?: PgChangeFeedOptions): PgChangeFeed {
    // pg-pool keeps the password as a non-enumerable property: a spread alone would drop it. The pool's own
    // options (max, idleTimeoutMillis...) mean nothing to a Client, which ignores them.
    return new PgChangeFeed({ ...pool.options, password: pool.options.password }, options);
  }

  /** Connects and listens; rejects if that first attempt fails (boot fails loudly). Later losses are retried. */
  async start(): Promise<void> {
    this.heartbeatTimer = setInterval(() => this.heartbeat(), this.heartbeatMs);
    this.heartbeatTimer.unref();
    try {
      await this.connect();
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** The version caches compare; a new number on every call while the feed cannot vouch for notifications. */
  current(): number {
    if (!this.listening) return ++this.version;
    return this.version;
  }

  /** This process wrote a cached table: its own caches drop at once, without waiting for the notification. */
  bump(): void {
    this.version++;
  }

  /**
   * Resolves once every notification committed before the call has been counted: a round trip on the listening
   * connection (PostgreSQL sends pending notifications before a query's answer). At once while down.
   */
  async sync(): Promise<void> {
    const client = this.client;
    if (client) await client.query('SELECT 1').catch(() => undefined);
  }

  /** Connected, listening, and proven alive within `maxSilenceMs`. */
  get listening(): boolean {
    return this.client !== undefined && performance.now() - this.provenAt <= this.maxSilenceMs;
  }

  /** The listening connection's backend process id (pg_stat_activity.pid), while connected. */
  get backendPid(): number | undefined {
    return this.client ? (this.client as unknown as { processID: number }).processID : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeatTimer);
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    if (client) await hangUp(client);
  }

  private async connect(): Promise<void> {
    // Timeouts so that a peer that never answers (a black hole) cannot stall reconnection; the feed counts as
    // down meanwhile anyway.
    const client = new Client({
      connectionTimeoutMillis: 10_000, query_timeout: this.maxSilenceMs, ...this.config, application_name: 'routegate-change-feed', keepAlive: true,
    });
    client.on('notification', (msg) => {
      if (msg.channel === CACHE_CHANNEL) this.version++;
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      const sentAt = performance.now();
      await client.connect();
      await client.query(`LISTEN ${CACHE_CHANNEL}`);
      if (this.closed) {
        await hangUp(client);
        return;
      }
      this.client = client;
      this.provenAt = sentAt;
      this.failures = 0;
      // Notifications committed before LISTEN took effect were never sent: whatever was cached is dropped.
      this.version++;
    } catch (err) {
      client.removeAllListeners('end');
      await hangUp(client);
      throw err;
    }
  }

  private heartbeat(): void {
    const client = this.client;
    if (!client) return;
    if (this.awaitingHeartbeat === client) {
      // No answer within the bound: the connection may be dead without saying so (a partition, a frozen peer).
      if (performance.now() - this.provenAt > this.maxSilenceMs) this.lost(client, new Error('PgChangeFeed: listening connection silent'));
      return;
    }
    this.awaitingHeartbeat = client;
    const sentAt = performance.now();
    // PostgreSQL sends pending notifications before a query's answer: when it arrives, every notification
    // committed before `sentAt` has been counted.
    client.query('SELECT 1').then(
      () => {
        if (client !== this.client) return;
        this.provenAt = sentAt;
        this.awaitingHeartbeat = undefined;
      },
      (err: Error) => this.lost(client, err),
    );
  }

  private lost(client: Client, err?: Error): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.awaitingHeartbeat = undefined;
    this.version++;
    client.removeAllListeners('end');
    void hangUp(client);
    this.options.onError?.(err ?? new Error('PgChangeFeed: listening connection ended'));
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.retryTimer) return;
    const backoff = Math.min(this.maxBackoffMs, this.minBackoffMs * 2 ** this.failures);
    this.failures++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closed) return;
      this.connect().catch((err: Error) => {
        this.options.onError?.(err);
        this.retry();
      });
    }, backoff * (0.5 + Math.random() / 2));
    this.retryTimer.unref();
  }
}

/** Ends a connection, politely if it answers within a second, else by closing its socket (a silent peer). */
async function hangUp(client: Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), 1000);
  });
  const ended = await Promise.race([client.end().then(() => 'ended', () => 'ended'), timeout]);
  clearTimeout(timer);
  if (ended === 'timeout') client.connection.stream.destroy();
}
