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
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    sent++;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  const write = () => {
    if (sent === written) return;
    written = sent;
    fs.writeFileSync(file, String(sent));
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
