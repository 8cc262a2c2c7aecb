import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { ROOT } from '../../src/lib/paths';
import { withDefaultUser } from '../../src/store/pg/pool';
import { TEST_PG_URL } from './pg';
import { call } from '../helper';

/** One `node dist/src/server.js` of a test: its name in messages, its URL, its pid. */
export interface RouteGateProcess {
  name: string;
  url: string;
  pid: number;
  child: ChildProcess;
  /** Resolves when the process has exited (after a SIGKILL too). */
  exited: Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Start RouteGate as its own process on `port` (default: a free one; stdout ignored, stderr, where it reports a
 * failed start, shown) and wait until /health answers. `ROUTEGATE_TEST_LOGS=1` shows each process's log lines too.
 */
export async function startRouteGate(name: string, env: Record<string, string>, port?: number, waitMs = 60_000): Promise<RouteGateProcess> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], {
    env: { ...process.env, NODE_ENV: 'development', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', process.env.ROUTEGATE_TEST_LOGS === '1' ? 'inherit' : 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: RouteGateProcess = { name, url, pid: child.pid!, child, exited };
  const until = Date.now() + waitMs;
  let dead = false;
  void exited.then(() => { dead = true; });
  for (;;) {
    try {
      if ((await call(url, 'GET', '/health')).status === 200) return proc;
    } catch {
      // not listening yet
    }
    if (dead) throw new Error(`RouteGate ${name} exited during start-up (code ${child.exitCode})`);
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`RouteGate ${name} did not answer /health within ${waitMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGKILL, and wait until the process is gone (a no-op for one already dead). */
export async function killHard(proc: RouteGateProcess): Promise<void> {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
  await proc.exited;
}

/** Why the PostgreSQL server the tests use cannot be reached, or undefined when it answers. */
export async function pgUnreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: withDefaultUser(TEST_PG_URL), connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return `PostgreSQL is not reachable at ${TEST_PG_URL} (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}
