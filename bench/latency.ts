import { Pool } from 'undici';

/** `count` and `failures` are the timed run's; `warmupCount` the requests sent before it. */
export interface LatencyResult { p50: number; p99: number; count: number; failures: number; warmupCount: number }

export interface PacedTarget { url: string; headers: Record<string, string>; body?: string; method?: 'GET' | 'POST' }

/**
 * Open-loop latency at a fixed request rate: a request starts every 1000/rate ms whether or not earlier ones
 * finished, so a slow target cannot hide queueing by slowing the client (coordinated omission). Times are in
 * milliseconds with microsecond resolution; autocannon's histogram rounds to whole milliseconds, which is
 * too coarse for a 1 ms budget.
 */
export async function pacedLatency(target: PacedTarget, ratePerSec: number, durationSec: number, warmupSec = 0): Promise<LatencyResult> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: 16, pipelining: 1 });
  let samples: number[] = [];
  let failures = 0;
  const one = async () => {
    const started = performance.now();
    try {
      const res = await pool.request({ path: url.pathname + url.search, method: target.method ?? 'POST', headers: target.headers, body: target.body });
      await res.body.dump();
      if (res.statusCode >= 300) failures += 1;
      else samples.push(performance.now() - started);
    } catch {
      failures += 1;
    }
  };
  const run = async (seconds: number) => {
    const interval = 1000 / ratePerSec;
    const total = Math.round(ratePerSec * seconds);
    const inflight: Promise<void>[] = [];
    const begin = performance.now();
    for (let i = 0; i < total; i++) {
      const due = begin + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inflight.push(one());
    }
    await Promise.all(inflight);
  };
  // The warm-up opens the pool's connections and settles the client's code at the same pace; its times are
  // dropped, its failures are not.
  let warmupCount = 0;
  if (warmupSec > 0) {
    await run(warmupSec);
    warmupCount = samples.length;
    samples = [];
  }
  await run(durationSec);
  await pool.close();
  samples.sort((a, b) => a - b);
  const at = (q: number) => (samples.length ? samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] : NaN);
  return { p50: round(at(0.5)), p99: round(at(0.99)), count: samples.length, failures, warmupCount };
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
