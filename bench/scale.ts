import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { Redis } from 'ioredis';
import { ROOT } from '../src/lib/paths';
import { withDefaultUser } from '../src/store/pg/pool';
import { loadMappings } from '../src/mapping/loader';
import { waitForHealth } from './health';
import { processCpuMs } from './proc-cpu';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { today } from '../src/gateways/common';
import { EMULATOR_NODE_FLAGS, resetEmulator } from './emulator-reset';

/**
 * `npm run bench:scale` (issue 17 item 5): throughput of normalized charges (`POST /api/v1/charges`, credit card,
 * to the Pagar.me emulator) for SQLite with one RouteGate process, PostgreSQL with one, and PostgreSQL with three
 * (autocannon's connections split evenly over the three, as a round-robin balancer would), the last with the rate
 * limits in memory and in Redis. The emulator direct is measured too: it is the ceiling every configuration shares.
 * Each server is its own process; the load generator runs here. Writes bench/scale-results.json.
 *
 * BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 30), BENCH_RUNS (default 1; targets interleaved),
 * BENCH_PG_URL (a server where databases can be created, default postgres://127.0.0.1:5432/test),
 * BENCH_REDIS_URL (default redis://127.0.0.1:6379; unreachable: that configuration is skipped), BENCH_ONLY (measure
 * only the configurations whose name contains one of these `|`-separated strings, e.g. "SQLite|3 processes").
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 30);
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ONLY = (process.env.BENCH_ONLY ?? '').split('|').map((w) => w.trim()).filter(Boolean);
const MASTER_KEY = 'b'.repeat(64);
const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<void>> = [];

function spawnNode(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

/** The first line a command prints (the CLI prints one JSON line). */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${child.spawnargs.join(' ')} exited with ${code}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Share of the machine's CPU time that was busy between two /proc/stat readings (Linux; NaN elsewhere). */
function cpuTimes(): { busy: number; total: number } {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3] + f[4];
    const total = f.reduce((s, x) => s + x, 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

/** User + system CPU ms of a process so far, from /proc (Linux); 0 elsewhere. */
const cpuMs = (child: ChildProcess): number => processCpuMs(child.pid);

interface Target { name: string; urls: string[]; path: string; headers: Record<string, string>; body: string; servers: ChildProcess[] }

interface Figures {
  name: string; processes: number; requestsPerSec: number; p50: number; p99: number; errors: number; non2xx: number;
  routegateCpuMsPerRequest?: number; machineBusy: number; loadAverage: number[];
}

/** Warm-up, then DURATION seconds with CONNECTIONS split evenly over the target's URLs, one autocannon per URL. */
async function measure(t: Target): Promise<Figures> {
  const run = (duration: number) => Promise.all(t.urls.map((u, i) => autocannon({
    url: `${u}${t.path}`, method: 'POST', headers: t.headers, body: t.body, duration,
    connections: Math.floor(CONNECTIONS / t.urls.length) + (i < CONNECTIONS % t.urls.length ? 1 : 0),
  })));
  await run(2);
  const cpuBefore = t.servers.reduce((s, c) => s + cpuMs(c), 0);
  const machineBefore = cpuTimes();
  const results = await run(DURATION);
  const machineAfter = cpuTimes();
  const total = results.reduce((s, r) => s + r.requests.total, 0);
  const weighted = (pick: (r: autocannon.Result) => number) => results.reduce((s, r) => s + pick(r) * r.requests.total, 0) / Math.max(1, total);
  return {
    name: t.name, processes: t.urls.length,
    requestsPerSec: Math.round(results.reduce((s, r) => s + r.requests.average, 0)),
    p50: Math.round(weighted((r) => r.latency.p50) * 10) / 10, p99: Math.round(weighted((r) => r.latency.p99) * 10) / 10,
    errors: results.reduce((s, r) => s + r.errors + r.timeouts, 0), non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    routegateCpuMsPerRequest: t.servers.length ? Math.round(((t.servers.reduce((s, c) => s + cpuMs(c), 0) - cpuBefore) / Math.max(1, total)) * 1000) / 1000 : undefined,
    machineBusy: Math.round(((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 1000) / 1000,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

async function freshPgDatabase(): Promise<string> {
  const name = `rg_bench_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: withDefaultUser(PG_URL) });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
  cleanups.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function redisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** The rate-limit counters a run left under its prefix (they would expire within a minute anyway). */
async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

const CHARGE = JSON.stringify({
  gateway: 'pagarme', paymentMethod: 'credit_card', amount: 1999, currency: 'BRL', description: 'Bench order',
  customer: { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909' },
  creditCard: { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 },
});

/** `count` RouteGate processes on one store (the env names it), the account made by the CLI; their URLs. */
async function startRouteGates(name: string, count: number, env: Record<string, string>): Promise<Target> {
  const bin = path.join(ROOT, 'bin', 'routegate.js');
  const account = JSON.parse(await firstLine(spawnNode([bin, 'accounts', 'create', '--name', 'Bench', '--email', `bench-${count}@example.com`], env)));
  const servers: ChildProcess[] = [];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    servers.push(spawnNode([path.join(ROOT, 'dist', 'src', 'server.js')], { ...env, PORT: String(port) }));
    urls.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(urls.map((u) => waitForHealth(u, 60)));
  const res = await fetch(`${urls[0]}/api/v1/credentials`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey }, body: JSON.stringify({ gateway: 'pagarme', credentials: SANDBOX_CREDENTIALS.pagarme }),
  });
  if (res.status !== 201) throw new Error(`storing credentials failed: ${res.status} ${await res.text()}`);
  return { name, urls, path: '/api/v1/charges', headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey }, body: CHARGE, servers };
}

async function main(): Promise<void> {
  const bin = path.join(ROOT, 'bin', 'routegate.js');
  const emulatorProcess = spawnNode([...EMULATOR_NODE_FLAGS, bin, 'emulators', '--port', '0'], {});
  const emulators = JSON.parse(await firstLine(emulatorProcess)).emulators as string;
  const base = {
    ROUTEGATE_MASTER_KEY: MASTER_KEY, HOST: '127.0.0.1', ROUTEGATE_LOG_LEVEL: 'warn', ROUTEGATE_RATE_LIMIT: '10000000',
    ROUTEGATE_PAGARME_URL: `${emulators}/pagarme`,
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-scale-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  const redis = await redisReachable();
  const native = await loadMappings().get('pagarme')!.evaluate('charge.request', { charge: JSON.parse(CHARGE), chargeId: 'chg_bench', today: today() });

  // Each configuration is started, measured and stopped in turn, so no idle server shares the cores with another's run.
  const configs: Array<{ name: string; start: () => Promise<Target> }> = [
    {
      name: 'emulator direct (ceiling)', start: async () => ({
        name: 'emulator direct (ceiling)', urls: [emulators], path: '/pagarme/core/v5/orders', servers: [], body: JSON.stringify(native),
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${SANDBOX_CREDENTIALS.pagarme.secretKey}:`).toString('base64')}` },
      }),
    },
    { name: 'SQLite, 1 process', start: () => startRouteGates('SQLite, 1 process', 1, { ...base, ROUTEGATE_DB: path.join(dir, `bench-${crypto.randomUUID()}.db`) }) },
    { name: 'PostgreSQL, 1 process', start: async () => startRouteGates('PostgreSQL, 1 process', 1, { ...base, DATABASE_URL: await freshPgDatabase() }) },
    { name: 'PostgreSQL, 3 processes', start: async () => startRouteGates('PostgreSQL, 3 processes', 3, { ...base, DATABASE_URL: await freshPgDatabase() }) },
  ];
  if (redis) {
    const prefix = `routegate-bench-${crypto.randomBytes(4).toString('hex')}:`;
    cleanups.push(() => deleteKeys(prefix));
    configs.push({
      name: 'PostgreSQL, 3 processes, limits in Redis',
      start: async () => startRouteGates('PostgreSQL, 3 processes, limits in Redis', 3, { ...base, DATABASE_URL: await freshPgDatabase(), REDIS_URL, ROUTEGATE_REDIS_PREFIX: prefix }),
    });
  } else process.stdout.write(`Redis not reachable at ${REDIS_URL}: the Redis configuration is skipped\n`);

  if (ONLY.length) configs.splice(0, configs.length, ...configs.filter((c) => ONLY.some((w) => c.name.includes(w))));
  const runs: Figures[][] = configs.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [n, config] of configs.entries()) {
      const target = await config.start();
      try {
        // Every configuration meets the emulator empty (bench/emulator-reset.ts).
        await resetEmulator(emulators);
        runs[n].push(await measure(target));
      } finally {
        for (const s of target.servers) await stop(s);
      }
    }
  }
  const median = (list: Figures[]): Figures => [...list].sort((x, y) => x.requestsPerSec - y.requestsPerSec)[Math.floor((list.length - 1) / 2)];
  const results = runs.map(median);
  const rate = (name: string) => results.find((r) => r.name === name)?.requestsPerSec ?? NaN;
  const summary = {
    date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadAverageAtEnd: os.loadavg(), durationSeconds: DURATION,
    connections: CONNECTIONS, runs: RUNS, results,
    ratios: {
      threeOverOnePostgres: rate('PostgreSQL, 3 processes') / rate('PostgreSQL, 1 process'),
      postgresOverSqlite: rate('PostgreSQL, 1 process') / rate('SQLite, 1 process'),
    },
    allRuns: runs,
  };
  fs.writeFileSync(path.join(ROOT, 'bench', 'scale-results.json'), JSON.stringify(summary, null, 2) + '\n');
  process.stdout.write(`${'configuration'.padEnd(42)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'RG cpu/req'.padStart(11)} ${'busy'.padStart(6)}  errors\n`);
  for (const r of results) {
    process.stdout.write(`${r.name.padEnd(42)} ${String(r.requestsPerSec).padStart(7)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} `
      + `${(r.routegateCpuMsPerRequest === undefined ? '-' : `${r.routegateCpuMsPerRequest} ms`).padStart(11)} ${`${Math.round(r.machineBusy * 100)}%`.padStart(6)}  ${r.errors + r.non2xx}\n`);
  }
  process.stdout.write(`PostgreSQL 3 / 1 processes: ${summary.ratios.threeOverOnePostgres.toFixed(2)}x; PostgreSQL / SQLite (1 process): ${summary.ratios.postgresOverSqlite.toFixed(2)}x\n`);
  process.stdout.write(`${CONNECTIONS} connections, ${DURATION} s, median of ${RUNS}; ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  if (results.some((r) => r.errors + r.non2xx > 0)) throw new Error('errors under load: the figures are not comparable');
}

async function cleanUp(): Promise<void> {
  for (const child of children) child.kill('SIGTERM');
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
}

main()
  .catch((err) => {
    process.stderr.write(`bench:scale: ${err.stack ?? err}\n`);
    process.exitCode = 1;
  })
  .then(cleanUp, cleanUp);
