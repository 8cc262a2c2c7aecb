import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from '../../src/lib/paths';
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

/**
 * A port free right now. Only for a URL that must be known before its process starts (a ROUTEGATE_PUBLIC_URL naming
 * the process itself): another process may take the port in between, so everything else listens on port 0.
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Spawn `node dist/src/server.js` listening on `port` (default 0: the process reports the port it got over IPC, see
 * src/server.ts) and resolve with its URL once it listens. stderr, where it reports a failed start, is shown;
 * stdout only with `ROUTEGATE_TEST_LOGS=1`.
 */
export async function spawnRouteGate(env: Record<string, string>, port = 0, waitMs = 60_000): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], {
    env: { ...process.env, NODE_ENV: 'development', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', process.env.ROUTEGATE_TEST_LOGS === '1' ? 'inherit' : 'ignore', 'inherit', 'ipc'],
  });
  const listening = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`RouteGate did not listen within ${waitMs} ms`));
    }, waitMs);
    child.on('message', (m: { routegate?: string; port?: number }) => {
      if (m?.routegate !== 'listening') return;
      clearTimeout(timer);
      resolve(m.port!);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`RouteGate exited during start-up (${signal ?? `code ${code}`})`));
    });
  });
  child.disconnect(); // the channel has done its job
  return { child, url: `http://127.0.0.1:${listening}` };
}

/** Start RouteGate as its own process (see spawnRouteGate) and wait until /health answers. */
export async function startRouteGate(name: string, env: Record<string, string>, port?: number, waitMs = 60_000): Promise<RouteGateProcess> {
  const start = Date.now();
  let spawned: { child: ChildProcess; url: string };
  try {
    spawned = await spawnRouteGate(env, port, waitMs);
  } catch (err) {
    throw new Error(`RouteGate ${name}: ${(err as Error).message}`);
  }
  const { child, url } = spawned;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const proc: RouteGateProcess = { name, url, pid: child.pid!, child, exited };
  for (;;) {
    try {
      if ((await call(url, 'GET', '/health')).status === 200) return proc;
    } catch {
      // listening, but not answering yet
    }
    if (child.exitCode !== null) throw new Error(`RouteGate ${name} exited during start-up (code ${child.exitCode})`);
    if (Date.now() - start > waitMs) {
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
