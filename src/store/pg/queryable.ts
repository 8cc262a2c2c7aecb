import { Pool } from 'pg';

/** What a PostgreSQL repository runs its statements on: the pool, or a client holding a transaction open. */
export type Queryable = Pick<Pool, 'query'>;

/**
 * Runs `work` in one transaction: a transaction of its own on a client checked out of the pool, or, on a client
 * (the store binds repositories to a client only inside its transaction), the caller's transaction.
 * For writes that must first lock a row and then read what committed meanwhile: one statement reads one snapshot.
 */
export async function atomically<T>(q: Queryable, work: (tx: Queryable) => Promise<T>): Promise<T> {
  if (!(q instanceof Pool)) return work(q);
  const client = await q.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    broken = await client.query('ROLLBACK').then(() => undefined, (rollbackErr: unknown) => rollbackErr);
    throw err;
  } finally {
    // A client whose ROLLBACK failed is in an unknown state: the pool drops it instead of handing it out again.
    client.release(broken instanceof Error ? broken : undefined);
  }
}
