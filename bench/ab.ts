import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { ROOT } from '../src/lib/paths';
import { loadMappings } from '../src/mapping/loader';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { SERVER_NODE_FLAGS } from '../src/lib/server-flags';
import { waitForHealth } from './health';
import { mainThreadCpuMs, processCounters, processCpuMs } from './proc-cpu';
import { today } from '../src/gateways/common';
import { EMULATOR_NODE_FLAGS, resetEmulator } from './emulator-reset';

/**
 * `npm run bench:ab -- <checkout>[|<node flags>[|<label>]] ...`: CPU per charge of several RouteGate builds (each a
 * checkout with its dist/ built, this one included as `.`) against the same plain proxy, taken in turns, so a
 * change is measured against its base under the same machine load: this machine's speed moves by 20% and more
 * between runs, far more than most changes. Prints each run (its CPU split into user and system, with its page faults and context switches a request), then the medians: CPU per request of the process
 * (all its threads), the main thread's share, throughput, and the ratio to the proxy's CPU. AB_REPS (5) runs of
 * AB_SECONDS (5) at AB_CONNECTIONS (20) after one warm-up of AB_WARMUP_SECONDS (8) per target, the builds' order rotating from run to run; AB_FLOOR=1 adds bench/floor.ts,
 * a charge's HTTP alone; AB_IDEMPOTENCY=1 gives every request an Idempotency-Key of its own. A measuring tool: nothing here ships in the service.
 */
const REPS = Number(process.env.AB_REPS ?? 5);
const SECONDS = Number(process.env.AB_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.AB_CONNECTIONS ?? 20);
// One saturated warm-up per target before the first run, long enough for V8's optimizing compiler to be done with
// the hot code (as in `npm run bench`, BENCH_JIT_WARMUP_SECONDS).
const WARMUP_SECONDS = Number(process.env.AB_WARMUP_SECONDS ?? 8);
const children: ChildProcess[] = [];

interface Target { name: string; pid: number; url: string; headers: Record<string, string>; body: string }

function start(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ line: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ line, child }));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

/** CPU time (ms) of a process, in all and in its main thread. */
const cpuMs = (pid: number): { all: number; main: number } => ({ all: processCpuMs(pid), main: mainThreadCpuMs(pid) });

async function startRouteGate(spec: string, index: number, pagarmeUrl: string): Promise<Target> {
  const [dir, flags, label] = spec.split('|');
  const root = path.resolve(dir);
  const env = {
    ROUTEGATE_DB: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-ab-')), 'ab.db'), ROUTEGATE_MASTER_KEY: 'e'.repeat(64), HOST: '127.0.0.1',
    ROUTEGATE_LOG_LEVEL: 'warn', ROUTEGATE_RATE_LIMIT: '10000000', ROUTEGATE_PAGARME_URL: pagarmeUrl,
  };
  const account = JSON.parse((await start([path.join(root, 'bin', 'routegate.js'), 'accounts', 'create', '--name', `AB ${index}`, '--email', `ab${index}@example.com`], root, env)).line);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const nodeFlags = flags ? flags.split(' ').filter(Boolean) : [...SERVER_NODE_FLAGS];
  start([...nodeFlags, path.join(root, 'dist', 'src', 'server.js')], root, { ...env, PORT: String(port) }).catch(() => undefined);
  const pid = children[children.length - 1].pid!;
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, 30);
  const headers = { 'content-type': 'application/json', 'x-api-key': account.apiKey as string };
  const res = await fetch(`${url}/api/v1/credentials`, { method: 'POST', headers, body: JSON.stringify({ gateway: 'pagarme', credentials: SANDBOX_CREDENTIALS.pagarme }) });
  if (res.status !== 201) throw new Error(`storing credentials in ${root} failed: ${res.status}`);
  return { name: label || `${index}:${path.basename(root)}`, pid, url: `${url}/api/v1/charges`, headers, body: JSON.stringify(CHARGE) };
}

const CHARGE = {
  gateway: 'pagarme', paymentMethod: 'credit_card', amount: 1999, currency: 'BRL', description: 'Bench order',
  customer: { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909' },
  creditCard: { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 },
};

async function main(): Promise<void> {
  const specs = process.argv.slice(2);
  if (specs.length === 0) throw new Error('usage: npm run bench:ab -- <checkout>[|<node flags>[|<label>]] ...');
  const emulators = JSON.parse((await start([...EMULATOR_NODE_FLAGS, path.join(ROOT, 'bin', 'routegate.js'), 'emulators', '--port', '0'], ROOT)).line).emulators as string;
  const proxy = await start([path.join(ROOT, 'dist', 'bench', 'proxy.js'), emulators], ROOT);
  const native = await loadMappings().get('pagarme')!.evaluate('charge.request', { charge: CHARGE, chargeId: 'chg_bench', today: today() });
  const targets: Target[] = [{
    name: 'proxy', pid: proxy.child.pid!, url: `${JSON.parse(proxy.line).url}/pagarme/core/v5/orders`, body: JSON.stringify(native),
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${SANDBOX_CREDENTIALS.pagarme.secretKey}:`).toString('base64')}` },
  }];
  if (process.env.AB_FLOOR === '1') {
    const floor = await start([path.join(ROOT, 'dist', 'bench', 'floor.js'), `${emulators}/pagarme/core/v5/orders`, JSON.stringify(native), targets[0].headers.authorization], ROOT);
    targets.push({ name: 'floor', pid: floor.child.pid!, url: `${JSON.parse(floor.line).url}/api/v1/charges`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(CHARGE) });
  }
  for (const [i, spec] of specs.entries()) targets.push(await startRouteGate(spec, i, `${emulators}/pagarme`));
  // AB_IDEMPOTENCY=1: every request carries an Idempotency-Key of its own, as a merchant's retrying client sends.
  let sequence = 0;
  const keyed = process.env.AB_IDEMPOTENCY === '1';
  const run = (t: Target, seconds: number) => autocannon({
    url: t.url, method: 'POST', headers: t.headers, body: t.body, connections: CONNECTIONS, duration: seconds,
    ...(keyed ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, 'idempotency-key': `ab-${process.pid}-${++sequence}` } }) }] } : {}),
  });
  for (const t of targets) await run(t, WARMUP_SECONDS); // warm-up: JIT, keep-alive pools
  const results = targets.map(() => [] as Array<{ all: number; main: number; rps: number }>);
  // The builds take turns in a rotating order: a build that always runs right after another RouteGate (whose
  // checkpoint and timers are still settling) would pay for it in every run, one that always follows the proxy never.
  const fixed = targets.length - specs.length;
  for (let rep = 0; rep < REPS; rep++) {
    const order = targets.map((_, i) => (i < fixed ? i : fixed + ((i - fixed + rep) % specs.length)));
    for (const i of order) {
      const t = targets[i];
      // Every run meets the emulator empty: one that kept the earlier runs' orders grew slower run by run.
      await resetEmulator(emulators);
      const before = cpuMs(t.pid);
      const countersBefore = processCounters(t.pid);
      const r = await run(t, SECONDS);
      const after = cpuMs(t.pid);
      const countersAfter = processCounters(t.pid);
      if (r.non2xx || r.errors) throw new Error(`${t.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      const n = r.requests.total;
      results[i].push({ all: (after.all - before.all) / n, main: (after.main - before.main) / n, rps: r.requests.average });
      const per = (key: keyof typeof countersAfter, digits: number) => ((countersAfter[key] - countersBefore[key]) / n).toFixed(digits);
      process.stdout.write(`${rep} ${t.name.padEnd(16)} ${((after.all - before.all) / n).toFixed(3)} ms/request  ${r.requests.average.toFixed(0)} req/s  `
        + `(user ${per('userMs', 3)}, system ${per('systemMs', 3)} ms; a request: ${per('minorFaults', 2)} faults, `
        + `${per('voluntary', 2)} switches given up, ${per('involuntary', 2)} preempted)\n`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  const proxyCpu = median(results[0].map((r) => r.all));
  for (const [i, t] of targets.entries()) {
    const all = median(results[i].map((r) => r.all));
    const main = median(results[i].map((r) => r.main));
    process.stdout.write(`median ${t.name.padEnd(16)} ${all.toFixed(3)} ms/request (main thread ${main.toFixed(3)})  ${(all / proxyCpu).toFixed(2)}x the proxy's  `
      + `${median(results[i].map((r) => r.rps)).toFixed(0)} req/s\n`);
  }
}

main()
  .catch((err) => {
    process.stderr.write(`bench:ab: ${err.stack ?? err}\n`);
    process.exitCode = 1;
  })
  .finally(() => {
    // A child keeps this process alive until it exits: none is left holding its port and its database.
    for (const c of children) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      c.kill('SIGTERM');
      setTimeout(() => c.kill('SIGKILL'), 5_000).unref();
    }
  });
