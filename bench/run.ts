import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ROOT } from '../src/lib/paths';
import { pacedLatencyApart } from './paced-client';
import { describeOtherCpu, otherProcessesCpu, processesCpu } from './machine-noise';
import { EMULATOR_NODE_FLAGS, resetEmulator } from './emulator-reset';
import { loadMappings } from '../src/mapping/loader';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { growthFigures, type GrowthFigures } from './growth';
import { seedCharges } from './seed';
import { processCpuMs } from './proc-cpu';
import { measureWebhooks } from './webhooks';
import { createAccount, firstLine, startNode, startRouteGate } from './routegate-process';
import { today } from '../src/gateways/common';
import { addInstallmentQuotes } from './installment-quotes';

/**
 * `npm run bench`: on this machine, (a) direct calls to the Pagar.me emulator, (b) the same calls through a plain
 * @fastify/http-proxy, (c) RouteGate normalized charges to the same emulator, each BENCH_RUNS (3) times; then list,
 * read and create latency on an empty database and on one with a million charges; then the webhook phase
 * (bench/webhooks.ts: saturation, receipt-to-backend latency, a burst with the backend down). Each server runs in its own
 * process so the load generator does not share their event loops. Writes bench/results.json; exits 1 when a
 * target is missed.
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
// Latency is read at a fixed request rate well below every target's capacity: under saturation, p50 is
// only connections / throughput and says nothing about the time RouteGate adds to a call.
const LATENCY_RATE = Number(process.env.BENCH_LATENCY_RATE ?? 100);
// p99 of a paced run is its 1% slowest requests: at 5 s (500 requests) that was the 5th slowest, and one hiccup of
// the machine moved it by 10 ms for the emulator alone. 15 s gives 1,500 requests, p99 the 15th slowest.
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 15);
// Untimed seconds at the same pace before each paced run: the client's connections and code, not the target's.
const LATENCY_WARMUP_SECONDS = Number(process.env.BENCH_LATENCY_WARMUP_SECONDS ?? 2);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
// V8 keeps compiling a server's hot code over its first seconds under load: on a slow host its optimizing
// compiler was still at work through the first 5 to 7 s of RouteGate's first measured run (docs/performance.md,
// eleventh round). Each target gets one saturated warm-up of this length before its first run, so every run
// measures compiled code, as a service that has been up for a while runs it.
const JIT_WARMUP_SECONDS = Number(process.env.BENCH_JIT_WARMUP_SECONDS ?? 8);
// BENCH_GROWTH=0 skips the million-charge comparison (seeding takes a minute or two).
const GROWTH = process.env.BENCH_GROWTH !== '0';
const SEED_COUNT = Number(process.env.BENCH_SEED_COUNT ?? 1_000_000);
const GROWTH_ROUNDS = Number(process.env.BENCH_GROWTH_ROUNDS ?? 3);
const children: ChildProcess[] = [];

async function start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ line: string; child: ChildProcess }> {
  const child = startNode(children, args, env);
  return { line: await firstLine(child, args.join(' ')), child };
}

interface Result {
  name: string;
  requestsPerSec: number; // at saturation
  p50: number; // ms, at LATENCY_RATE req/s (open loop, see latency.ts)
  p99: number;
  saturatedP50: number; // ms, at saturation (for reference)
  requestsTotal: number; // every request of the warm-up, saturated and paced runs
  serverCpuMsPerRequest?: number; // CPU of the proxy / RouteGate process per request, at saturation (the target's figure)
  serversCpuMsPerRequest?: number; // the same plus the emulator's
  serverCpuMsPerRequestAllPhases?: number; // the process's CPU over the warm-up, saturated and paced runs, per request
  serverCpuMsPerRequestPaced?: number; // the process's CPU per request over the paced run (its warm-up included)
  pacedOtherCpuMs: number; // CPU the machine's other processes (not the bench's) used during the paced run
  pacedOtherTop: string; // the largest of them by command name, e.g. `kdamond.0 30 ms, beam.smp 10 ms`
  errors: number;
  non2xx: number;
}

/** One of the bench's three targets: a server (none for the emulator called directly) and the POST it is sent. */
interface Target { name: string; server: ChildProcess | undefined; url: string; headers: Record<string, string>; body: string }

/** `target`'s POST at saturation (CONNECTIONS connections) for `duration` seconds. */
const saturate = (target: Target, duration: number) =>
  autocannon({ url: target.url, method: 'POST', headers: target.headers, body: target.body, connections: CONNECTIONS, duration });

/**
 * `cpu` reads the CPU time (ms) of the processes measured, around the saturated run. `resetEmulators` empties the
 * emulator before the warm-up and before the paced run, so every target meets it in the same state: it keeps every
 * order it is sent, and by the last runs a bench had left it a gigabyte of them, whose collections (scavenges of 10
 * to 26 ms) landed in every target's paced run alike.
 */
async function load(
  target: Target, cpu: () => { server: number; servers: number }, resetEmulators: () => Promise<void>,
): Promise<Result & { saturatedCpu: { server: number; servers: number }; pacedCpu: number }> {
  await resetEmulators();
  const warm = await saturate(target, 2); // warm-up: JIT, keep-alive pools
  const before = cpu();
  const saturated = await saturate(target, DURATION);
  const after = cpu();
  await resetEmulators();
  // Only the request goes to the paced client (over its stdin, as JSON): not the server's process handle.
  const { url, headers, body } = target;
  const beforePaced = cpu();
  const machineBefore = processesCpu();
  const paced = await pacedLatencyApart({ url, headers, body }, LATENCY_RATE, LATENCY_SECONDS, LATENCY_WARMUP_SECONDS);
  const other = otherProcessesCpu(machineBefore, processesCpu(), [process.pid, ...children.map((c) => c.pid ?? 0)]);
  const pacedRequests = paced.warmupCount + paced.count + paced.failures;
  const n = saturated.requests.total;
  return {
    saturatedCpu: { server: (after.server - before.server) / n, servers: (after.servers - before.servers) / n },
    pacedCpu: (cpu().server - beforePaced.server) / pacedRequests,
    requestsTotal: warm.requests.total + saturated.requests.total + pacedRequests,
    name: target.name, requestsPerSec: saturated.requests.average, p50: paced.p50, p99: paced.p99, saturatedP50: saturated.latency.p50,
    pacedOtherCpuMs: Math.round(other.ms), pacedOtherTop: describeOtherCpu(other),
    errors: saturated.errors + saturated.timeouts + paced.failures, non2xx: saturated.non2xx,
  };
}

/** User + system CPU time of a child process so far, from /proc (Linux); 0 elsewhere. */
const cpuMs = (child: ChildProcess | undefined): number => processCpuMs(child?.pid);

const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-bench-'));
  const bin = path.join(ROOT, 'bin', 'routegate.js');
  const emulatorProcess = await start([...EMULATOR_NODE_FLAGS, bin, 'emulators', '--port', '0']);
  const emulators = JSON.parse(emulatorProcess.line).emulators as string;
  const resetEmulators = () => resetEmulator(emulators);
  const proxyProcess = await start([path.join(ROOT, 'dist', 'bench', 'proxy.js'), emulators]);
  const proxyUrl = JSON.parse(proxyProcess.line).url as string;

  const env = {
    ROUTEGATE_DB: path.join(dir, 'bench.db'), ROUTEGATE_MASTER_KEY: 'e'.repeat(64), PORT: '0', HOST: '127.0.0.1', ROUTEGATE_LOG_LEVEL: 'warn',
    // The limits stay in the code; the bench only raises them through configuration.
    ROUTEGATE_RATE_LIMIT: '10000000', ROUTEGATE_PAGARME_URL: `${emulators}/pagarme`,
  };
  const account = await createAccount(children, env, 'Bench', 'bench@example.com');
  // BENCH_PROFILE=dir writes a V8 CPU profile of the RouteGate process there (bench/routegate-process.ts).
  const { child: routegateProcess, url: routegate } = await startRouteGate(children, env);
  const json = { 'content-type': 'application/json' };
  const credsRes = await fetch(`${routegate}/api/v1/credentials`, {
    method: 'POST', headers: { ...json, 'x-api-key': account.apiKey }, body: JSON.stringify({ gateway: 'pagarme', credentials: SANDBOX_CREDENTIALS.pagarme }),
  });
  if (credsRes.status !== 201) throw new Error(`storing credentials failed: ${credsRes.status} ${await credsRes.text()}`);

  const charge = {
    gateway: 'pagarme', paymentMethod: 'credit_card', amount: 1999, currency: 'BRL', description: 'Bench order',
    customer: { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909' },
    creditCard: { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 },
  };
  // The native body comes from RouteGate's own mapping, so (a)/(b) send what (c) sends the gateway.
  const native = await loadMappings().get('pagarme')!.evaluate('charge.request', { charge, chargeId: 'chg_bench', today: today() });
  const nativeHeaders = { ...json, authorization: `Basic ${Buffer.from(`${SANDBOX_CREDENTIALS.pagarme.secretKey}:`).toString('base64')}` };

  // CPU time each server process spends per request tells where the machine's cores go. The target's figure is
  // taken over the saturated run, as the throughput is: the paced run's 1,500 requests over 15 s would add the idle
  // process's own timers (RouteGate's checkpoints, reconciler and outbox) to each request. The figure over all the
  // runs is kept beside it.
  const measured = async (server: ChildProcess | undefined, run: (cpu: () => { server: number; servers: number }) => ReturnType<typeof load>): Promise<Result> => {
    const serverBefore = cpuMs(server);
    const { saturatedCpu, pacedCpu, ...r } = await run(() => ({ server: cpuMs(server), servers: cpuMs(server) + cpuMs(emulatorProcess.child) }));
    return {
      ...r,
      serverCpuMsPerRequest: server ? round3(saturatedCpu.server) : undefined,
      serversCpuMsPerRequest: round3(saturatedCpu.servers),
      serverCpuMsPerRequestAllPhases: server ? round3((cpuMs(server) - serverBefore) / r.requestsTotal) : undefined,
      serverCpuMsPerRequestPaced: server ? round3(pacedCpu) : undefined,
    };
  };
  const loads: Target[] = [
    { name: 'a: emulator direct', server: undefined, url: `${emulators}/pagarme/core/v5/orders`, headers: nativeHeaders, body: JSON.stringify(native) },
    { name: 'b: @fastify/http-proxy', server: proxyProcess.child, url: `${proxyUrl}/pagarme/core/v5/orders`, headers: nativeHeaders, body: JSON.stringify(native) },
    { name: 'c: RouteGate /api/v1/charges', server: routegateProcess, url: `${routegate}/api/v1/charges`, headers: { ...json, 'x-api-key': account.apiKey }, body: JSON.stringify(charge) },
  ];
  const warmedUp: number[] = [];
  for (const t of loads) {
    await resetEmulators();
    warmedUp.push((await saturate(t, JIT_WARMUP_SECONDS)).requests.total);
  }
  // Each target RUNS times (a, b, c, a, b, c, ...), so a burst of load from elsewhere on the machine spreads over
  // all three instead of landing on one; every figure reported is the median of its runs.
  const runs: Result[][] = loads.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, t] of loads.entries()) {
      runs[k].push(await measured(t.server, (cpu) => load(t, cpu, resetEmulators)));
    }
  }
  const results = runs.map(medianResult);
  const [a, b, c] = results;
  const chargesMade = warmedUp[2] + runs[2].reduce((n, r) => n + r.requestsTotal, 0);
  const rssMb = rssOf(routegateProcess);
  const growth = GROWTH ? await measureGrowth(env, charge) : undefined;
  // The webhook phase (bench/webhooks.ts), on a RouteGate process of its own; BENCH_WEBHOOKS=0 skips it.
  const webhooks = process.env.BENCH_WEBHOOKS === '0' ? undefined : await measureWebhooks(children);

  const cpuB = b.serverCpuMsPerRequest ?? NaN;
  const cpuC = c.serverCpuMsPerRequest ?? NaN;
  const ratios = {
    throughputCoverB: c.requestsPerSec / b.requestsPerSec, throughputCoverA: c.requestsPerSec / a.requestsPerSec,
    cpuCoverB: cpuC / cpuB, p50AddedMs: c.p50 - b.p50, p99AddedMs: c.p99 - b.p99,
  };
  const targets = {
    cpuCoverBAtMost: 2, throughputCoverBAtLeast: 0.5, p99AddedAtMostMs: 2, rssAfterLoadAtMostMb: 200, growthAtMost: 1.5,
    webhookCpuPerEventAtMostCharge: 1, webhookP99AtMostMs: 20, webhookBurstRssAtMostMb: 250,
  };
  const met = {
    cpu: ratios.cpuCoverB <= targets.cpuCoverBAtMost,
    throughput: ratios.throughputCoverB >= targets.throughputCoverBAtLeast,
    p99: ratios.p99AddedMs <= targets.p99AddedAtMostMs,
    rss: rssMb <= targets.rssAfterLoadAtMostMb,
    growth: growth ? Object.values(growth.ratio).every((r) => !(r > targets.growthAtMost)) : true,
    ...(webhooks ? {
      webhookCpu: webhooks.cpuPerEventMs <= cpuC * targets.webhookCpuPerEventAtMostCharge,
      webhookP99: webhooks.p99ReceiptToBackendMs <= targets.webhookP99AtMostMs,
      // Every event accepted in the burst is in the backend's dedupe once (duplicates on the wire are allowed),
      // counted by the ids the burst's own notifications were answered with.
      webhookBurst: webhooks.burst.drained && webhooks.burst.accepted === webhooks.burst.events && webhooks.burst.delivered === webhooks.burst.events,
      webhookBurstRss: webhooks.burst.peakRssMb <= targets.webhookBurstRssAtMostMb,
    } : {}),
  };
  const summary = {
    date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg(), runs: RUNS, durationSeconds: DURATION,
    connections: CONNECTIONS, jitWarmupSeconds: JIT_WARMUP_SECONDS, latencyRatePerSec: LATENCY_RATE, latencySeconds: LATENCY_SECONDS, latencyWarmupSeconds: LATENCY_WARMUP_SECONDS, results, cpuPerRequestMs: { a: a.serversCpuMsPerRequest, b: cpuB, c: cpuC },
    cpuPerRequestMsAllPhases: { b: b.serverCpuMsPerRequestAllPhases, c: c.serverCpuMsPerRequestAllPhases },
    ratios, rssAfterLoadMb: rssMb, chargesMade, growth, webhooks, targets, met, targetsMet: Object.values(met).every(Boolean), allRuns: runs,
  };
  for (const r of results) {
    process.stdout.write(
      `${r.name.padEnd(30)} ${r.requestsPerSec.toFixed(0).padStart(6)} req/s (saturated, p50 ${r.saturatedP50} ms)`
      + `   at ${LATENCY_RATE} req/s: p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms   errors ${r.errors}  non-2xx ${r.non2xx}`
      + (r.serverCpuMsPerRequest !== undefined ? `   cpu/req at saturation ${r.serverCpuMsPerRequest} ms (+emulator ${r.serversCpuMsPerRequest})` : `   emulator cpu/req at saturation ${r.serversCpuMsPerRequest} ms`) + '\n',
    );
  }
  const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
  const line = (ok: boolean, text: string) => process.stdout.write(`${ok ? 'met    ' : 'NOT met'}  ${text}\n`);
  process.stdout.write(`median of ${RUNS} run(s); load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores\n`);
  line(met.cpu, `CPU per charge ${cpuC} ms vs proxy ${cpuB} ms at saturation: ${ratios.cpuCoverB.toFixed(2)}x (<= ${targets.cpuCoverBAtMost}x); `
    + `over every run, paced ones included: ${c.serverCpuMsPerRequestAllPhases} vs ${b.serverCpuMsPerRequestAllPhases} ms`);
  line(met.throughput, `throughput c/b ${pct(ratios.throughputCoverB)} (>= ${pct(targets.throughputCoverBAtLeast)}), c/a ${pct(ratios.throughputCoverA)}`);
  // At the paced rate every request meets a process that was idle: on a slow host each costs several times its CPU
  // at saturation, and the p50 added follows the difference (docs/performance.md, thirteenth round).
  line(met.p99, `p99 added at ${LATENCY_RATE} req/s ${ratios.p99AddedMs.toFixed(2)} ms (<= ${targets.p99AddedAtMostMs} ms); p50 added ${ratios.p50AddedMs.toFixed(2)} ms; `
    + `CPU per request at that rate ${c.serverCpuMsPerRequestPaced} vs proxy ${b.serverCpuMsPerRequestPaced} ms`);
  // Not a target: what else the machine ran while the paced runs were timed. On a 2-core host a task that holds one
  // core for milliseconds (the kernel's DAMON, every half second on the fifteenth round's host) puts every process
  // on the other: the paced runs' slowest requests (docs/performance.md, fifteenth round).
  process.stdout.write(`machine    other processes' CPU during the paced runs: ${results.map((r) => `${r.name.slice(0, 1)} ${r.pacedOtherCpuMs} ms (${r.pacedOtherTop})`).join('; ')}\n`);
  line(met.rss, `RouteGate RSS after ${chargesMade} charges ${rssMb} MB (<= ${targets.rssAfterLoadAtMostMb} MB)`);
  if (growth) {
    for (const k of Object.keys(growth.empty) as Array<keyof GrowthFigures>) {
      line(!(growth.ratio[k] > targets.growthAtMost), `${k}: p50 ${growth.empty[k]} ms empty, ${growth.full[k]} ms with ${growth.seeded} charges (${growth.ratio[k].toFixed(2)}x, <= ${targets.growthAtMost}x)`);
    }
  } else process.stdout.write('growth not measured (BENCH_GROWTH=0)\n');
  if (webhooks) {
    const b = webhooks.burst;
    process.stdout.write(`webhooks   ${webhooks.eventsPerSecond} events/s at saturation (${webhooks.gateways.join(', ')}), errors ${webhooks.saturationErrors}\n`);
    line(met.webhookCpu!, `CPU per event ${webhooks.cpuPerEventMs} ms vs a charge's ${cpuC} ms (<= ${targets.webhookCpuPerEventAtMostCharge}x)`);
    line(met.webhookP99!, `receipt to backend at ${webhooks.pacedRatePerSec} events/s: p50 ${webhooks.p50ReceiptToBackendMs} ms, p99 ${webhooks.p99ReceiptToBackendMs} ms (<= ${targets.webhookP99AtMostMs} ms); lost ${webhooks.pacedLost}`);
    line(met.webhookBurst!, `burst of ${b.events} with the backend down: ${b.accepted} accepted in ${b.sendMs} ms, ${b.delivered} delivered once each `
      + `(${b.duplicatesOnWire} duplicates on the wire; ${b.earlierPhases} events of earlier phases arrived meanwhile, not the burst's), `
      + `drained ${b.drainMs} ms after the backend came back${b.drained ? '' : ' (NOT drained: timed out)'}`);
    line(met.webhookBurstRss!, `RouteGate RSS during the burst and drain at most ${b.peakRssMb} MB (<= ${targets.webhookBurstRssAtMostMb} MB)`);
  } else process.stdout.write('webhooks not measured (BENCH_WEBHOOKS=0)\n');
  fs.writeFileSync(path.join(ROOT, 'bench', 'results.json'), JSON.stringify(summary, null, 2) + '\n');
  await addInstallmentQuotes(routegate, account.apiKey); // the quote phase (bench/installment-quotes.ts): installmentQuotes in results.json
  if (c.non2xx > 0 || c.errors > 0) throw new Error('RouteGate answered errors under load; figures are not comparable');
  if (!summary.targetsMet) process.exitCode = 1;
}

/** The other processes' CPU of the run with the median figure: its total and the names that made it. */
function otherOfMedianRun(runs: Result[]): Pick<Result, 'pacedOtherCpuMs' | 'pacedOtherTop'> {
  const median = [...runs].sort((x, y) => x.pacedOtherCpuMs - y.pacedOtherCpuMs)[Math.floor((runs.length - 1) / 2)];
  return { pacedOtherCpuMs: median.pacedOtherCpuMs, pacedOtherTop: median.pacedOtherTop };
}

/** The median of each figure over the runs of one target. */
function medianResult(runs: Result[]): Result {
  const med = (pick: (r: Result) => number | undefined) => {
    const v = runs.map(pick).filter((x): x is number => typeof x === 'number').sort((x, y) => x - y);
    return v.length ? v[Math.floor((v.length - 1) / 2)] : undefined;
  };
  return {
    name: runs[0].name, requestsPerSec: med((r) => r.requestsPerSec)!, p50: med((r) => r.p50)!, p99: med((r) => r.p99)!,
    saturatedP50: med((r) => r.saturatedP50)!, requestsTotal: med((r) => r.requestsTotal)!, serverCpuMsPerRequest: med((r) => r.serverCpuMsPerRequest),
    serversCpuMsPerRequest: med((r) => r.serversCpuMsPerRequest), serverCpuMsPerRequestAllPhases: med((r) => r.serverCpuMsPerRequestAllPhases),
    serverCpuMsPerRequestPaced: med((r) => r.serverCpuMsPerRequestPaced), ...otherOfMedianRun(runs), errors: runs.reduce((n, r) => n + r.errors, 0), non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  };
}

/** Resident set size of a process in MB, from /proc (Linux); NaN elsewhere. */
function rssOf(child: ChildProcess | undefined): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child?.pid}/status`, 'utf8'))?.[1]);
    return Math.round(kb / 1024);
  } catch {
    return NaN;
  }
}

/**
 * The growth comparison: the same figures from a server on an empty database and one on a million charges, taken in
 * turns (GROWTH_ROUNDS times each, the order alternating, medians), as the a/b/c runs are: taken one after the other,
 * a drift of this machine's speed between the two read as growth (one bench gave 1.5x to 1.8x on every read where
 * the benches before and after it gave 0.6x to 0.8x). The seeded file is flushed to disk before either is measured,
 * so the kernel's writeback of a million rows does not land inside the second measurement.
 */
async function measureGrowth(baseEnv: Record<string, string>, charge: unknown) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-growth-'));
  const database = async (name: string) => {
    const env = { ...baseEnv, ROUTEGATE_DB: path.join(dir, `${name}.db`) };
    return { env, account: await createAccount(children, env, `Growth ${name}`, `growth-${name}@example.com`) };
  };
  const serve = async (db: Awaited<ReturnType<typeof database>>) => {
    // Not profiled: BENCH_PROFILE is for the charge targets' RouteGate.
    const { child, url } = await startRouteGate(children, db.env, { profile: false });
    const res = await fetch(`${url}/api/v1/credentials`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': db.account.apiKey }, body: JSON.stringify({ gateway: 'pagarme', credentials: SANDBOX_CREDENTIALS.pagarme }),
    });
    if (res.status !== 201 && res.status !== 200) throw new Error(`storing credentials failed: ${res.status}`);
    return { url, child, apiKey: db.account.apiKey };
  };
  const emptyDb = await database('empty');
  const fullDb = await database('full');
  seedCharges(fullDb.env.ROUTEGATE_DB, fullDb.account.accountId ?? fullDb.account.id!, SEED_COUNT);
  const fd = fs.openSync(fullDb.env.ROUTEGATE_DB, 'r+');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  const servers = [await serve(emptyDb), await serve(fullDb)];
  const rate = 50;
  const seconds = Math.max(3, Math.round(DURATION / 3));
  const taken: GrowthFigures[][] = [[], []];
  for (let round = 0; round < GROWTH_ROUNDS; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) taken[i].push(await growthFigures(servers[i].url, servers[i].apiKey, charge, rate, seconds));
  }
  await Promise.all(servers.map((server) => new Promise((resolve) => {
    server.child.once('exit', resolve);
    server.child.kill('SIGTERM');
  })));
  const medianOf = (figures: GrowthFigures[]) => Object.fromEntries(Object.keys(figures[0]).map((k) => {
    const xs = figures.map((f) => f[k as keyof GrowthFigures]).sort((a, b) => a - b);
    return [k, xs[Math.floor((xs.length - 1) / 2)]];
  })) as unknown as GrowthFigures;
  const [empty, full] = taken.map(medianOf);
  const ratio = Object.fromEntries(Object.keys(empty).map((k) => [k, round3(full[k as keyof GrowthFigures] / empty[k as keyof GrowthFigures])])) as Record<keyof GrowthFigures, number>;
  return { seeded: SEED_COUNT, ratePerSec: rate, rounds: GROWTH_ROUNDS, empty, full, ratio };
}

main()
  .catch((err) => {
    process.stderr.write(`bench: ${err.stack ?? err}\n`);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) child.kill('SIGTERM');
  });
