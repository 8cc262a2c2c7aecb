import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from '../src/lib/paths';
import { SERVER_NODE_FLAGS } from '../src/lib/server-flags';
import { waitForHealth } from './health';

// The benches' processes (bench/run.ts, bench/webhooks.ts): each started with `node`, kept in `children` so the
// bench can stop them all whatever happens.

/** `node <args>` in the repository, its stdout piped (its first line is how it answers), its stderr shown. */
export function startNode(children: ChildProcess[], args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

/** The first line the process writes; rejects if it exits first. */
export function firstLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

/** `routegate accounts create` on the database `env` names: the account and its API key, as the CLI prints them. */
export async function createAccount(children: ChildProcess[], env: NodeJS.ProcessEnv, name: string, email: string): Promise<{ apiKey: string; id?: string; accountId?: string }> {
  const created = startNode(children, [path.join(ROOT, 'bin', 'routegate.js'), 'accounts', 'create', '--name', name, '--email', email], env);
  return JSON.parse(await firstLine(created, 'accounts create'));
}

/**
 * RouteGate as `npm start` runs it (src/lib/server-flags.ts) on a random port, healthy. BENCH_PROFILE=dir writes a
 * V8 CPU profile of the process there (open it in Chrome DevTools, or bench/profile-top.ts).
 */
export async function startRouteGate(children: ChildProcess[], env: NodeJS.ProcessEnv, opts: { profile?: boolean } = {}): Promise<{ child: ChildProcess; url: string }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const profile = process.env.BENCH_PROFILE && opts.profile !== false ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_PROFILE)] : [];
  const child = startNode(children, [...SERVER_NODE_FLAGS, ...profile, path.join(ROOT, 'dist', 'src', 'server.js')], { ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, 20);
  return { child, url };
}
