import fs from 'node:fs';
import pg from 'pg';

/**
 * Preloaded into a RouteGate process by `bench:scale` (`node --require dist/bench/round-trip-counter.js`): counts
 * every query its pg clients send (pg.Client.prototype.query, under the pool's own query: each one a round trip to
 * PostgreSQL), as test/pg-round-trips.test.ts does, and keeps the count in the file BENCH_ROUND_TRIPS_FILE names,
 * rewritten every 100 ms while it changes. The bench reads it before and after a measured run.
 */
const file = process.env.BENCH_ROUND_TRIPS_FILE;
if (file) {
  let sent = 0;
  let written = -1;
  // BENCH_ROUND_TRIPS_NAMES=1: also each statement's count by name, in `<file>.names.json` (which statements a charge sends).
  const names = process.env.BENCH_ROUND_TRIPS_NAMES === '1' ? new Map<string, number>() : undefined;
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    sent++;
    if (names) {
      const first = args[0] as string | { name?: string; text?: string };
      const name = typeof first === 'string' ? first.slice(0, 40) : first.name ?? (first.text ?? '').slice(0, 40);
      names.set(name, (names.get(name) ?? 0) + 1);
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  const write = () => {
    if (sent === written) return;
    written = sent;
    fs.writeFileSync(file, String(sent));
    if (names) fs.writeFileSync(`${file}.names.json`, JSON.stringify(Object.fromEntries(names), null, 1));
  };
  write();
  setInterval(write, 100).unref();
}

/** The count a counted process last wrote (0 before its first write). */
export function readRoundTrips(file: string): number {
  try {
    return Number(fs.readFileSync(file, 'utf8')) || 0;
  } catch {
    return 0;
  }
}
