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
import { SERVER_NODE_FLAGS } from '../src/lib/server-flags';
import { readRoundTrips } from './round-trip-counter';
import { cpuByPid, cpuSpent, pgProcesses } from './pg-cpu';

/**
 * `npm run bench:scale` (issue 17 item 5): throughput of normalized charges (`POST /api/v1/charges`, credit card,
 * to the Pagar.me emulator) for SQLite with one RouteGate process, PostgreSQL with one, and PostgreSQL with three
 * (autocannon's connections split evenly over the three, as a round-robin balancer would), the last with the rate
 * limits in memory and in Redis. The emulator direct is measured too: it is the ceiling every configuration shares.
 * Each server is its own process; the load generator runs here. Writes bench/scale-results.json.
 *
 * Per configuration it reports charges/s, RouteGate's CPU per charge (its processes' time from /proc), on PostgreSQL
 * the database's own CPU per charge (bench/pg-cpu.ts: the backends serving the bench's database, and with the
 * server's shared processes) and the round trips per charge (every query RouteGate's pg clients send, counted in the
 * process by bench/round-trip-counter.ts). Issue 45's targets: PostgreSQL with one process at least 70% of SQLite's
 * charges/s, and RouteGate's CPU per charge there at most 1.3x its CPU per charge on SQLite; exit 1 when missed.
 *
 * Charges/s is a saturated rate, so the load keeps enough requests in flight to cover each configuration's latency:
 * 100 connections by default. At 30, a PostgreSQL process waits on its two commits with the machine a fifth idle and
 * measures its latency, not its capacity; a real service's requests keep arriving while earlier ones wait.
 *
 * BENCH_DURATION (s, default 10), BENCH_WARMUP (s of untimed load first, default 4), BENCH_CONNECTIONS (default
 * 100), BENCH_RUNS (default 3, medians; configurations interleaved),
 * BENCH_PG_URL (a server where databases can be created, default postgres://127.0.0.1:5432/test),
 * BENCH_REDIS_URL (default redis://127.0.0.1:6379; unreachable: that configuration is skipped), BENCH_ROUND_TRIPS_NAMES=1
 * (each configuration's statements by name in the results: which ones a charge sends), BENCH_ONLY (measure
 * only the configurations whose name contains one of these `|`-separated strings, e.g. "SQLite|3 processes"),
 * BENCH_PROFILE (a folder: each RouteGate process writes a V8 CPU profile there when it stops).
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ONLY = (process.env.BENCH_ONLY ?? '').split('|').map((w) => w.trim()).filter(Boolean);
const MASTER_KEY = 'b'.repeat(64);
// BENCH_PROFILE=dir: a V8 CPU profile of each RouteGate process there (bench/profile-top.js reads one).
const PROFILE = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_PROFILE)] : [];
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

interface Target {
  name: string; urls: string[]; path: string; headers: Record<string, string>; body: string; servers: ChildProcess[];
  /** The PostgreSQL database the servers use (none: SQLite, or no RouteGate). */
  pg?: { url: string; database: string; drop: () => Promise<void> };
  /** Where each server's round-trip counter keeps its count (bench/round-trip-counter.ts). */
  roundTripFiles: string[];
}

interface Figures {
  name: string; processes: number; requestsPerSec: number; p50: number; p99: number; errors: number; non2xx: number;
  routegateCpuMsPerRequest?: number; machineBusy: number; loadAverage: number[];
  /** PostgreSQL only: its backends' and shared processes' CPU, the backends' alone, and RouteGate's queries, per charge. */
  databaseCpuMsPerCharge?: number; databaseBackendCpuMsPerCharge?: number; roundTripsPerCharge?: number;
  /** BENCH_ROUND_TRIPS_NAMES=1: every statement the servers sent, by name, over their whole life (warm-up included). */
  statements?: Record<string, number>;
}

/** Warm-up, then DURATION seconds with CONNECTIONS split evenly over the target's URLs, one autocannon per URL. */
async function measure(t: Target): Promise<Figures> {
  const run = (duration: number) => Promise.all(t.urls.map((u, i) => autocannon({
    url: `${u}${t.path}`, method: 'POST', headers: t.headers, body: t.body, duration,
    connections: Math.floor(CONNECTIONS / t.urls.length) + (i < CONNECTIONS % t.urls.length ? 1 : 0),
  })));
  await run(WARMUP);
  // A running service's tables have statistics (autovacuum analyzes a table within a minute of its first rows);
  // the bench's fresh database has none until then, and the plans made on its near-empty tables scan them whole.
  if (t.pg) await runOn(t.pg.url, 'ANALYZE');
  const roundTrips = () => t.roundTripFiles.reduce((n, f) => n + readRoundTrips(f), 0);
  // The counters write every 100 ms: a reading waits for the last write of the run before it.
  await new Promise((r) => setTimeout(r, 250));
  const tripsBefore = roundTrips();
  const processes = t.pg ? await pgProcesses(t.pg.url, t.pg.database) : undefined;
  const backendsBefore = cpuByPid(processes?.backends ?? []);
  const sharedBefore = cpuByPid(processes?.shared ?? []);
  const cpuBefore = t.servers.reduce((s, c) => s + cpuMs(c), 0);
  const machineBefore = cpuTimes();
  const results = await run(DURATION);
  const machineAfter = cpuTimes();
  const cpuAfter = t.servers.reduce((s, c) => s + cpuMs(c), 0);
  const after = t.pg ? await pgProcesses(t.pg.url, t.pg.database) : undefined;
  const backendCpu = cpuSpent(backendsBefore, cpuByPid(after?.backends ?? []));
  const sharedCpu = cpuSpent(sharedBefore, cpuByPid(after?.shared ?? []));
  await new Promise((r) => setTimeout(r, 250));
  const trips = roundTrips() - tripsBefore;
  const total = results.reduce((s, r) => s + r.requests.total, 0);
  const perCharge = (x: number) => Math.round((x / Math.max(1, total)) * 1000) / 1000;
  const weighted = (pick: (r: autocannon.Result) => number) => results.reduce((s, r) => s + pick(r) * r.requests.total, 0) / Math.max(1, total);
  return {
    name: t.name, processes: t.urls.length,
    requestsPerSec: Math.round(results.reduce((s, r) => s + r.requests.average, 0)),
    p50: Math.round(weighted((r) => r.latency.p50) * 10) / 10, p99: Math.round(weighted((r) => r.latency.p99) * 10) / 10,
    errors: results.reduce((s, r) => s + r.errors + r.timeouts, 0), non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    routegateCpuMsPerRequest: t.servers.length ? perCharge(cpuAfter - cpuBefore) : undefined,
    // 0 where /proc could not be read (another machine's server): not a figure.
    databaseCpuMsPerCharge: t.pg && backendCpu > 0 ? perCharge(backendCpu + sharedCpu) : undefined,
    databaseBackendCpuMsPerCharge: t.pg && backendCpu > 0 ? perCharge(backendCpu) : undefined,
    roundTripsPerCharge: t.pg ? Math.round((trips / Math.max(1, total)) * 100) / 100 : undefined,
    statements: t.pg && process.env.BENCH_ROUND_TRIPS_NAMES === '1' ? statementsSent(t.roundTripFiles) : undefined,
    machineBusy: Math.round(((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 1000) / 1000,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** The statements the counted servers sent, by name, summed over the servers. */
function statementsSent(files: string[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const f of files) {
    try {
      for (const [name, n] of Object.entries(JSON.parse(fs.readFileSync(`${f}.names.json`, 'utf8')) as Record<string, number>)) sum[name] = (sum[name] ?? 0) + n;
    } catch {
      // not written (yet)
    }
  }
  return sum;
}

/** One statement on a connection of its own. */
async function runOn(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: withDefaultUser(url) });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * A database of its own for one configuration's run, dropped once its servers stop: a dropped run's tables leave no
 * autovacuum work behind to run during the next configuration's measurement.
 */
async function freshPgDatabase(): Promise<{ url: string; database: string; drop: () => Promise<void> }> {
  const name = `rg_bench_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = (sql: string) => runOn(PG_URL, sql);
  await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
  const drop = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  cleanups.push(drop);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), database: name, drop };
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
async function startRouteGates(name: string, count: number, env: Record<string, string>, database?: Target['pg']): Promise<Target> {
  if (database) env = { ...env, DATABASE_URL: database.url };
  const bin = path.join(ROOT, 'bin', 'routegate.js');
  const account = JSON.parse(await firstLine(spawnNode([bin, 'accounts', 'create', '--name', 'Bench', '--email', `bench-${count}@example.com`], env)));
  const servers: ChildProcess[] = [];
  const urls: string[] = [];
  const roundTripFiles: string[] = [];
  for (let i = 0; i < count; i++) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const counter = path.join(os.tmpdir(), `routegate-scale-trips-${process.pid}-${port}`);
    roundTripFiles.push(counter);
    cleanups.push(async () => {
      fs.rmSync(counter, { force: true });
      fs.rmSync(`${counter}.names.json`, { force: true });
    });
    // As `npm start` runs it (src/lib/server-flags.ts), with the round-trip counter preloaded.
    const args = [...SERVER_NODE_FLAGS, ...PROFILE, '--require', path.join(ROOT, 'dist', 'bench', 'round-trip-counter.js'), path.join(ROOT, 'dist', 'src', 'server.js')];
    servers.push(spawnNode(args, { ...env, PORT: String(port), BENCH_ROUND_TRIPS_FILE: counter }));
    urls.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(urls.map((u) => waitForHealth(u, 60)));
  const res = await fetch(`${urls[0]}/api/v1/credentials`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey }, body: JSON.stringify({ gateway: 'pagarme', credentials: SANDBOX_CREDENTIALS.pagarme }),
  });
  if (res.status !== 201) throw new Error(`storing credentials failed: ${res.status} ${await res.text()}`);
  return { name, urls, path: '/api/v1/charges', headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey }, body: CHARGE, servers, pg: database, roundTripFiles };
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
        name: 'emulator direct (ceiling)', urls: [emulators], path: '/pagarme/core/v5/orders', servers: [], roundTripFiles: [], body: JSON.stringify(native),
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${SANDBOX_CREDENTIALS.pagarme.secretKey}:`).toString('base64')}` },
      }),
    },
    { name: 'SQLite, 1 process', start: () => startRouteGates('SQLite, 1 process', 1, { ...base, ROUTEGATE_DB: path.join(dir, `bench-${crypto.randomUUID()}.db`) }) },
    { name: 'PostgreSQL, 1 process', start: async () => startRouteGates('PostgreSQL, 1 process', 1, base, await freshPgDatabase()) },
    { name: 'PostgreSQL, 3 processes', start: async () => startRouteGates('PostgreSQL, 3 processes', 3, base, await freshPgDatabase()) },
  ];
  if (redis) {
    const prefix = `routegate-bench-${crypto.randomBytes(4).toString('hex')}:`;
    cleanups.push(() => deleteKeys(prefix));
    configs.push({
      name: 'PostgreSQL, 3 processes, limits in Redis',
      start: async () => startRouteGates('PostgreSQL, 3 processes, limits in Redis', 3, { ...base, REDIS_URL, ROUTEGATE_REDIS_PREFIX: prefix }, await freshPgDatabase()),
    });
  } else process.stdout.write(`Redis not reachable at ${REDIS_URL}: the Redis configuration is skipped\n`);

  if (ONLY.length) configs.splice(0, configs.length, ...configs.filter((c) => ONLY.some((w) => c.name.includes(w))));
  const runs: Figures[][] = configs.map(() => []);
  // The two configurations the targets compare go first, alternated RUNS times; the three-process ones, which hold
  // the machine at its limit, follow, so their after-effects (the server's checkpoints and autovacuum of what they
  // wrote) fall on each other and not on the compared pair.
  const compared = (name: string) => name === 'SQLite, 1 process' || name === 'PostgreSQL, 1 process';
  const keys = [...configs.keys()];
  const groups = [keys.filter((n) => compared(configs[n].name)), keys.filter((n) => !compared(configs[n].name))];
  for (const group of groups) for (let i = 0; i < RUNS; i++) {
    for (const n of group) {
      const target = await configs[n].start();
      try {
        // Every configuration meets the emulator empty (bench/emulator-reset.ts).
        await resetEmulator(emulators);
        runs[n].push(await measure(target));
      } finally {
        for (const s of target.servers) await stop(s);
        await target.pg?.drop();
      }
    }
  }
  const median = (list: Figures[]): Figures => [...list].sort((x, y) => x.requestsPerSec - y.requestsPerSec)[Math.floor((list.length - 1) / 2)];
  const results = runs.map(median);
  const rate = (name: string) => results.find((r) => r.name === name)?.requestsPerSec ?? NaN;
  const sqlite = results.find((r) => r.name === 'SQLite, 1 process');
  const postgres = results.find((r) => r.name === 'PostgreSQL, 1 process');
  const ratios = {
    threeOverOnePostgres: rate('PostgreSQL, 3 processes') / rate('PostgreSQL, 1 process'),
    postgresOverSqlite: rate('PostgreSQL, 1 process') / rate('SQLite, 1 process'),
    routegateCpuPostgresOverSqlite: (postgres?.routegateCpuMsPerRequest ?? NaN) / (sqlite?.routegateCpuMsPerRequest ?? NaN),
  };
  const targets = { postgresOverSqliteAtLeast: 0.7, routegateCpuPostgresOverSqliteAtMost: 1.3 };
  // A target whose configurations were not measured (BENCH_ONLY) is neither met nor missed: it is left out.
  const met: Record<string, boolean> = {};
  if (sqlite && postgres) {
    met.throughput = ratios.postgresOverSqlite >= targets.postgresOverSqliteAtLeast;
    met.cpu = ratios.routegateCpuPostgresOverSqlite <= targets.routegateCpuPostgresOverSqliteAtMost;
  }
  const summary = {
    date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadAverageAtEnd: os.loadavg(), durationSeconds: DURATION,
    warmupSeconds: WARMUP, connections: CONNECTIONS, runs: RUNS,
    sqlite: sqlite && { chargesPerSecond: sqlite.requestsPerSec, routegateCpuMsPerCharge: sqlite.routegateCpuMsPerRequest },
    postgres: postgres && {
      chargesPerSecond: postgres.requestsPerSec, routegateCpuMsPerCharge: postgres.routegateCpuMsPerRequest,
      databaseCpuMsPerCharge: postgres.databaseCpuMsPerCharge, databaseBackendCpuMsPerCharge: postgres.databaseBackendCpuMsPerCharge,
      roundTripsPerCharge: postgres.roundTripsPerCharge,
    },
    results, ratios, targets, met, targetsMet: Object.values(met).every(Boolean),
    allRuns: runs,
  };
  fs.writeFileSync(path.join(ROOT, 'bench', 'scale-results.json'), JSON.stringify(summary, null, 2) + '\n');
  const col = (v: number | undefined, unit = '') => (v === undefined || Number.isNaN(v) ? '-' : `${v}${unit}`);
  process.stdout.write(`${'configuration'.padEnd(42)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'RG cpu/req'.padStart(11)} `
    + `${'DB cpu/req'.padStart(11)} ${'(backends)'.padStart(11)} ${'trips/req'.padStart(9)} ${'busy'.padStart(6)}  errors\n`);
  for (const r of results) {
    process.stdout.write(`${r.name.padEnd(42)} ${String(r.requestsPerSec).padStart(7)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} `
      + `${col(r.routegateCpuMsPerRequest, ' ms').padStart(11)} ${col(r.databaseCpuMsPerCharge, ' ms').padStart(11)} ${col(r.databaseBackendCpuMsPerCharge, ' ms').padStart(11)} `
      + `${col(r.roundTripsPerCharge).padStart(9)} ${`${Math.round(r.machineBusy * 100)}%`.padStart(6)}  ${r.errors + r.non2xx}\n`);
  }
  process.stdout.write(`PostgreSQL 3 / 1 processes: ${ratios.threeOverOnePostgres.toFixed(2)}x\n`);
  const line = (ok: boolean | undefined, text: string) => process.stdout.write(`${ok === undefined ? 'not measured' : ok ? 'met    ' : 'NOT met'}  ${text}\n`);
  line(met.throughput, `PostgreSQL / SQLite charges/s (1 process): ${ratios.postgresOverSqlite.toFixed(2)}x (>= ${targets.postgresOverSqliteAtLeast}x)`);
  line(met.cpu, `RouteGate CPU per charge PostgreSQL / SQLite: ${ratios.routegateCpuPostgresOverSqlite.toFixed(2)}x (<= ${targets.routegateCpuPostgresOverSqliteAtMost}x)`);
  process.stdout.write(`${CONNECTIONS} connections, ${WARMUP} s warm-up, ${DURATION} s, median of ${RUNS}; ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  if (!summary.targetsMet) process.exitCode = 1;
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
