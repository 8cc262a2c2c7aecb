import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { request, Agent } from 'undici';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { processCpuMs } from './proc-cpu';
import { createAccount, startRouteGate } from './routegate-process';
import {
  asaasEvent, asaasHeaders, pagarmeEvent, pagarmeHeaders, pagbankHeaders, stripeEvent, stripeHeaders,
} from '../test/helpers/gateway-webhooks';

/**
 * The webhook phase of `npm run bench` (issue 45 item 3): RouteGate's receivers under signed notifications of each
 * gateway's real shape, signed as each gateway signs them (test/helpers/gateway-webhooks.ts), forwarded to a minimal
 * merchant backend in this process that answers 200 at once.
 *
 * - Saturation: BENCH_CONNECTIONS connections for BENCH_WEBHOOK_SECONDS (default 10) after a warm-up: events/s and
 *   RouteGate's CPU per event (its process's time from /proc).
 * - Paced: BENCH_LATENCY_RATE events/s (default 100) for BENCH_WEBHOOK_PACED_SECONDS (default 10), open loop:
 *   p50/p99 from the notification leaving here to the backend receiving the forwarded event.
 * - Burst: BENCH_WEBHOOK_BURST (default 10,000) events with the backend down (connections refused), then the backend
 *   up: the time from its return until every event is in its dedupe (by RouteGate's event id), each counted once
 *   there however often it came on the wire, and RouteGate's peak RSS from the burst's start to the drain's end.
 *   The burst counts its own events only, by the ids RouteGate answered them with: an earlier phase's event that
 *   reaches the backend meanwhile (Asaas is acknowledged on store, so its last paced events may still be on their
 *   way) is reported apart (`earlierPhases`), not counted as one of the burst's.
 *
 * Every event names a payment of its own (no charge of the account's): each is verified, normalized, deduped, stored
 * and forwarded; none moves a charge. Mercado Pago is not among them: its notification carries only an id and
 * RouteGate reads the payment at the gateway, so its cost is that gateway call's (measured by the charge targets).
 * RouteGate runs on SQLite (a fresh file), with NODE_ENV=development (an http forward URL), the outbox worker every 100 ms and the first retry after 1 s
 * (ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS, ROUTEGATE_WEBHOOK_RETRY_BASE_MS; production defaults are 5 s and 1 min),
 * so the drain measures the outbox, not a minute of waiting; failed retries still back off, doubling.
 */

export interface WebhookFigures {
  gateways: string[];
  eventsPerSecond: number;
  cpuPerEventMs: number;
  saturationErrors: number;
  pacedRatePerSec: number;
  p50ReceiptToBackendMs: number;
  p99ReceiptToBackendMs: number;
  pacedEvents: number;
  pacedLost: number;
  burst: {
    events: number; accepted: number; delivered: number; duplicatesOnWire: number; sendMs: number; drainMs: number; peakRssMb: number;
    drained: boolean; retryBaseMs: number; workerIntervalMs: number;
    /** Events of the earlier phases the backend received from the burst's start to the drain's end (not the burst's). */
    earlierPhases: number;
  };
  /** RouteGate event ids the backend received more than once over the whole phase (at least once on the wire). */
  eventsOnWireMoreThanOnce: number;
  rssAfterMb: number;
}

const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WEBHOOK_WARMUP_SECONDS ?? 4);
const PACED_RATE = Number(process.env.BENCH_LATENCY_RATE ?? 100);
const PACED_SECONDS = Number(process.env.BENCH_WEBHOOK_PACED_SECONDS ?? 10);
const BURST = Number(process.env.BENCH_WEBHOOK_BURST ?? 10_000);
const DRAIN_TIMEOUT_S = Number(process.env.BENCH_WEBHOOK_DRAIN_TIMEOUT ?? 600);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const RETRY_BASE_MS = 1_000;
const WORKER_INTERVAL_MS = 100;

type Gateway = 'stripe' | 'pagarme' | 'asaas' | 'pagbank';
const GATEWAYS: Gateway[] = ['stripe', 'pagarme', 'asaas', 'pagbank'];

/** The n-th notification of a gateway: a payment of its own, approved; its body and its signed headers. */
function notification(gateway: Gateway, n: string): { body: string; headers: Record<string, string> } {
  const creds = SANDBOX_CREDENTIALS[gateway] as Record<string, string>;
  if (gateway === 'stripe') {
    const body = stripeEvent(`evt_bench${n}`, 'payment_intent.succeeded', {
      id: `pi_bench${n}`, object: 'payment_intent', amount: 15000, amount_received: 15000, currency: 'brl', status: 'succeeded', payment_method_types: ['card'], metadata: {},
    });
    return { body, headers: stripeHeaders(body, creds.webhookSecret) };
  }
  if (gateway === 'pagarme') {
    const body = pagarmeEvent(`hook_bench${n}`, 'order.paid', {
      id: `or_bench${n}`, code: `bench-${n}`, amount: 5980, status: 'paid',
      charges: [{ id: `ch_bench${n}`, amount: 5980, paid_amount: 5980, status: 'paid', payment_method: 'pix', last_transaction: { status: 'paid' } }],
    });
    return { body, headers: pagarmeHeaders(body, creds.webhookSecret) };
  }
  if (gateway === 'asaas') {
    const body = asaasEvent(`evt_bench${n}&1`, 'PAYMENT_RECEIVED', { object: 'payment', id: `pay_bench${n}`, value: 19.99, billingType: 'PIX', status: 'RECEIVED', paymentDate: '2030-01-01' });
    return { body, headers: asaasHeaders(creds.webhookSecret) };
  }
  const body = JSON.stringify({
    id: `ORDE_BENCH${n}`, reference_id: `bench-${n}`,
    charges: [{ id: `CHAR_BENCH${n}`, status: 'PAID', amount: { value: 5980, currency: 'BRL', summary: { total: 5980, paid: 5980, refunded: 0 } }, payment_method: { type: 'CREDIT_CARD' } }],
  });
  return { body, headers: pagbankHeaders(body, creds.token) };
}

/** The merchant's backend: answers 200 at once, keeps when each RouteGate event id first came and how often it came. */
class Backend {
  readonly firstSeen = new Map<string, number>();
  readonly times = new Map<string, number>();
  received = 0;
  private server: http.Server | undefined;
  port = 0;

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        this.received++;
        try {
          const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string }).id;
          if (id && !this.firstSeen.has(id)) this.firstSeen.set(id, at);
          if (id) this.times.set(id, (this.times.get(id) ?? 0) + 1);
        } catch {
          // not an event: counted on the wire only
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as import('node:net').AddressInfo).port;
    this.server = server;
  }

  /** Down: the port refuses connections (RouteGate's forward fails at once), kept connections closed too. */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/routegate`;
  }
}

function rssMb(pid: number | undefined): number {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);
  } catch {
    return NaN;
  }
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : NaN);
const round2 = (x: number) => Math.round(x * 100) / 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const progress = (line: string) => process.stderr.write(`webhooks: ${line}\n`);

/** SIGTERM, then SIGKILL if the process is still there after 10 s (a shutdown waiting on connections). */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Runs the webhook phase against a RouteGate process of its own; `children` collects the processes it starts. */
export async function measureWebhooks(children: ChildProcess[]): Promise<WebhookFigures> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-webhooks-'));
  const backend = new Backend();
  await backend.start();
  const env = {
    ROUTEGATE_DB: path.join(dir, 'webhooks.db'), ROUTEGATE_MASTER_KEY: 'f'.repeat(64), HOST: '127.0.0.1', ROUTEGATE_LOG_LEVEL: 'warn',
    ROUTEGATE_RATE_LIMIT: '10000000', ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS: 'true',
    // Outside production a forward URL may be plain http: the backend here has no certificate. What production changes
    // besides (error envelopes' detail, the metrics token) is off these requests' path.
    NODE_ENV: 'development',
    ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS: String(WORKER_INTERVAL_MS), ROUTEGATE_WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
  };
  let routegate: ChildProcess | undefined;
  try {
    const account = await createAccount(children, env, 'Webhook bench', 'webhooks@example.com');
    // BENCH_PROFILE=dir profiles this process too (bench/routegate-process.ts).
    const started = await startRouteGate(children, env);
    routegate = started.child;
    const base = started.url;
    const api = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${base}/api/v1${p}`, {
        method, headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey }, body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { data: Record<string, unknown> };
    };
    for (const g of GATEWAYS) await api('POST', '/credentials', { gateway: g, credentials: SANDBOX_CREDENTIALS[g] });
    await api('PATCH', '/clients/settings', { webhookForwardUrl: backend.url });
    const urls = (await api('GET', '/clients/me')).data.webhookUrls as Record<Gateway, string>;
    const receiver = Object.fromEntries(GATEWAYS.map((g) => [g, new URL(urls[g]).pathname])) as Record<Gateway, string>;

    let n = 0;
    const next = (tag: string) => {
      const gateway = GATEWAYS[n % GATEWAYS.length];
      const { body, headers } = notification(gateway, `${tag}${process.pid}x${++n}`);
      return { gateway, path: receiver[gateway], body, headers };
    };

    // Saturation: each request a new notification, signed as its gateway signs it.
    const saturate = (seconds: number) => autocannon({
      url: base, connections: CONNECTIONS, duration: seconds,
      requests: [{
        method: 'POST',
        setupRequest: (req: Record<string, unknown>) => {
          const e = next('s');
          req.path = e.path;
          req.headers = e.headers;
          req.body = e.body;
          return req;
        },
      }],
    } as unknown as autocannon.Options);
    progress(`saturation: ${WARMUP_SECONDS} s warm-up, ${SECONDS} s measured`);
    await saturate(WARMUP_SECONDS);
    const cpuBefore = processCpuMs(routegate.pid);
    const saturated = await saturate(SECONDS);
    const cpuPerEventMs = (processCpuMs(routegate.pid) - cpuBefore) / Math.max(1, saturated.requests.total);
    await sleep(500);

    progress(`${Math.round(saturated.requests.average)} events/s; paced: ${PACED_RATE} events/s for ${PACED_SECONDS} s`);
    // Paced, open loop: the notification's departure to the backend's receipt of the event forwarded.
    const agent = new Agent({ connections: 50, keepAliveTimeout: 10_000 });
    const sentAt = new Map<string, number>();
    let pacedLost = 0;
    const inFlight: Array<Promise<void>> = [];
    const pacedTotal = Math.round(PACED_RATE * PACED_SECONDS);
    const start = performance.now();
    for (let i = 0; i < pacedTotal; i++) {
      const due = start + (i * 1000) / PACED_RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const e = next('p');
      const left = performance.now();
      inFlight.push(request(`${base}${e.path}`, { method: 'POST', headers: e.headers, body: e.body, dispatcher: agent }).then(async (res) => {
        const answer = (await res.body.json()) as { data?: { eventId?: string } };
        if (res.statusCode === 200 && answer.data?.eventId) sentAt.set(answer.data.eventId, left);
        else pacedLost++;
      }, () => { pacedLost++; }));
    }
    await Promise.all(inFlight);
    // An event acknowledged on store (Asaas) may reach the backend after its answer: up to 5 s for the last ones,
    // so they are neither counted lost here nor left to arrive during the burst.
    const pacedDone = performance.now();
    while ([...sentAt.keys()].some((id) => !backend.firstSeen.has(id)) && performance.now() - pacedDone < 5_000) await sleep(20);
    const latencies = [...sentAt].map(([id, left]) => (backend.firstSeen.get(id) ?? NaN) - left).filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    pacedLost += sentAt.size - latencies.length;

    progress(`paced p99 ${round2(percentile(latencies, 0.99))} ms; burst of ${BURST} with the backend down`);
    // Burst: the backend down, BURST notifications at saturation; then the backend back on its port. Its events are
    // the ids RouteGate answered them with.
    const burstIds = new Set<string>();
    const seenBefore = new Set(backend.firstSeen.keys());
    await backend.stop();
    let peakRss = rssMb(routegate.pid);
    const sampler = setInterval(() => { peakRss = Math.max(peakRss, rssMb(routegate!.pid)); }, 100);
    let sent = 0;
    let accepted = 0;
    const burstStart = performance.now();
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (sent < BURST) {
        sent++;
        const e = next('b');
        try {
          const res = await request(`${base}${e.path}`, { method: 'POST', headers: e.headers, body: e.body, dispatcher: agent });
          const answer = (await res.body.json()) as { data?: { eventId?: string }; error?: { code?: string; message?: string } };
          // Stored in the outbox either way: 200 (acknowledged) or the answer that the forward failed (the gateway
          // would resend; the outbox retries it regardless), whose message names the event.
          const id = res.statusCode === 200 ? answer.data?.eventId
            : answer.error?.code === 'WEBHOOK_NOT_DELIVERED' ? /\b(evt_[0-9a-f]+)\b/.exec(answer.error.message ?? '')?.[1] : undefined;
          if (id) {
            accepted++;
            burstIds.add(id);
          }
        } catch {
          // not accepted: counted as such
        }
      }
    }));
    const sendMs = performance.now() - burstStart;
    progress(`burst: ${accepted} of ${sent} accepted in ${Math.round(sendMs)} ms with the backend down; backend up, draining`);
    await backend.start();
    const upAt = performance.now();
    const deliveredOfBurst = () => {
      let n = 0;
      for (const id of burstIds) if (backend.firstSeen.has(id)) n++;
      return n;
    };
    let drained = false;
    while (performance.now() - upAt < DRAIN_TIMEOUT_S * 1000) {
      if (deliveredOfBurst() >= burstIds.size) {
        drained = true;
        break;
      }
      await sleep(50);
    }
    const drainMs = performance.now() - upAt;
    // A second later: anything still arriving is a duplicate on the wire, counted as one.
    await sleep(1000);
    clearInterval(sampler);
    await agent.close();
    let burstOnWire = 0;
    for (const id of burstIds) burstOnWire += backend.times.get(id) ?? 0;
    const earlierPhases = [...backend.firstSeen.keys()].filter((id) => !seenBefore.has(id) && !burstIds.has(id)).length;
    const delivered = deliveredOfBurst();
    return {
      gateways: GATEWAYS,
      eventsPerSecond: Math.round(saturated.requests.average),
      cpuPerEventMs: Math.round(cpuPerEventMs * 1000) / 1000,
      saturationErrors: saturated.errors + saturated.timeouts + saturated.non2xx,
      pacedRatePerSec: PACED_RATE,
      p50ReceiptToBackendMs: round2(percentile(latencies, 0.5)),
      p99ReceiptToBackendMs: round2(percentile(latencies, 0.99)),
      pacedEvents: latencies.length,
      pacedLost,
      burst: {
        events: BURST, accepted, delivered, duplicatesOnWire: burstOnWire - delivered, sendMs: Math.round(sendMs),
        drainMs: Math.round(drainMs), peakRssMb: peakRss, drained, retryBaseMs: RETRY_BASE_MS, workerIntervalMs: WORKER_INTERVAL_MS, earlierPhases,
      },
      eventsOnWireMoreThanOnce: [...backend.times.values()].filter((n) => n > 1).length,
      rssAfterMb: rssMb(routegate.pid),
    };
  } finally {
    if (routegate) await stopProcess(routegate);
    await backend.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `node dist/bench/webhooks.js`: the webhook phase alone, its figures printed as JSON. */
if (require.main === module) {
  const children: ChildProcess[] = [];
  measureWebhooks(children)
    .then((figures) => process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`))
    .catch((err) => {
      process.stderr.write(`bench webhooks: ${err.stack ?? err}\n`);
      process.exitCode = 1;
    })
    .finally(() => {
      for (const c of children) c.kill('SIGTERM');
    });
}
