import { Pool, type ClientBase } from 'pg';

/** What a PostgreSQL repository runs its statements on: the pool, or a client holding a transaction open. */
export type Queryable = Pick<Pool, 'query'>;

/** A named statement with its values: one object shape for every query, which pg's own code reads. */
export interface NamedStatement { name: string; text: string }

/**
 * `{ ...statement, values }`, without the spread. Node 20's V8 gives an object made by a leading spread a hidden
 * class of its own and makes a new one for each key added after it (docs/performance.md, eighteenth round).
 */
export function withValues(statement: NamedStatement, values: unknown[]): { name: string; text: string; values: unknown[] } {
  return { name: statement.name, text: statement.text, values };
}

/**
 * Runs `work` in one transaction: the caller's, on a client inside one (the store binds repositories to a
 * client for its transactions); else a transaction of its own, on a client checked out of the pool or on the
 * idle client given. For writes that must lock a row and then read what committed meanwhile: one statement
 * reads one snapshot.
 */
export async function atomically<T>(q: Queryable, work: (tx: Queryable) => Promise<T>): Promise<T> {
  const status = q instanceof Pool ? 'I' : (q as Partial<Pick<ClientBase, 'getTransactionStatus'>>).getTransactionStatus?.();
  if (status !== 'I') return work(q); // 'T': the caller's transaction; 'E' fails on its own; unknown: as given
  const client = q instanceof Pool ? await q.connect() : (q as ClientBase);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    broken = await client.query('ROLLBACK').then(() => undefined, (rollbackErr: Error) => rollbackErr);
    throw err;
  } finally {
    // A client whose ROLLBACK failed is in an unknown state: the pool drops it instead of handing it out again.
    if (q instanceof Pool) (client as import('pg').PoolClient).release(broken);
  }
}
