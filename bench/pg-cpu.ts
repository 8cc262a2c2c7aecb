import pg from 'pg';
import { withDefaultUser } from '../src/store/pg/pool';
import { processCpuMs } from './proc-cpu';

/**
 * PostgreSQL's own CPU, from /proc (Linux, the server on this machine): the backends serving one database (the
 * RouteGate pool's connections) and the server's shared processes that work for every write (WAL writer,
 * checkpointer, background writer, autovacuum). The shared ones also work for any other database on the server:
 * on a server of its own, as the bench assumes, that is the bench's.
 */
export interface PgProcesses { backends: number[]; shared: number[] }

const SHARED_TYPES = ['walwriter', 'checkpointer', 'background writer', 'autovacuum launcher', 'autovacuum worker', 'logical replication launcher'];

/** The server's processes now: the backends connected to `database` (this query's own excepted) and the shared ones. */
export async function pgProcesses(url: string, database: string): Promise<PgProcesses> {
  const client = new pg.Client({ connectionString: withDefaultUser(url), application_name: 'routegate-bench-cpu' });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number; backend_type: string; datname: string | null }>(
      'SELECT pid, backend_type, datname FROM pg_stat_activity WHERE pid <> pg_backend_pid()',
    );
    return {
      backends: rows.filter((r) => r.datname === database && r.backend_type === 'client backend').map((r) => r.pid),
      shared: rows.filter((r) => SHARED_TYPES.includes(r.backend_type)).map((r) => r.pid),
    };
  } finally {
    await client.end();
  }
}

/** CPU ms of each process so far; a process that is gone (or not readable here) counts 0. */
export function cpuByPid(pids: number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, processCpuMs(pid)]));
}

/** CPU ms spent between two readings; a process first seen in `after` counts from 0 (it started during the run). */
export function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, now] of after) ms += Math.max(0, now - (before.get(pid) ?? 0));
  return ms;
}
