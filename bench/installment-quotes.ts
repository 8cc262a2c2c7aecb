import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/lib/paths';
import { pacedLatencyApart } from './paced-client';

/**
 * The quote phase of `npm run bench` (issue 44): GET /api/v1/installments at a paced 100 requests a second for a few
 * seconds, on an account with interest beyond three installments, against the RouteGate the bench already runs. The
 * figures go into bench/results.json as `installmentQuotes` (p50Ms, p99Ms); this phase has no target of its own.
 */
const RATE = Number(process.env.BENCH_QUOTE_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_QUOTE_SECONDS ?? 4);
const WARMUP_SECONDS = Number(process.env.BENCH_QUOTE_WARMUP_SECONDS ?? 1);
const PLANS = { maxCount: 12, interestFreeCount: 3, monthlyInterestRate: 1.99, minInstallmentAmount: 500 };

export interface QuoteFigures { ratePerSec: number; seconds: number; p50Ms: number; p99Ms: number; requests: number; failures: number }

export async function measureInstallmentQuotes(routegate: string, apiKey: string): Promise<QuoteFigures> {
  const headers = { 'x-api-key': apiKey };
  const set = await fetch(`${routegate}/api/v1/clients/settings`, {
    method: 'PATCH', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ installments: PLANS }),
  });
  if (set.status !== 200) throw new Error(`setting the installment plans failed: ${set.status} ${await set.text()}`);
  const r = await pacedLatencyApart({ url: `${routegate}/api/v1/installments?amount=123456`, headers, method: 'GET' }, RATE, SECONDS, WARMUP_SECONDS);
  const round2 = (n: number) => Math.round(n * 100) / 100;
  return { ratePerSec: RATE, seconds: SECONDS, p50Ms: round2(r.p50), p99Ms: round2(r.p99), requests: r.count, failures: r.failures };
}

/** Measure the phase and add it to bench/results.json (written by the phases before it); one line of output. */
export async function addInstallmentQuotes(routegate: string, apiKey: string, file = path.join(ROOT, 'bench', 'results.json')): Promise<QuoteFigures> {
  const figures = await measureInstallmentQuotes(routegate, apiKey);
  const results = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  results.installmentQuotes = figures;
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(`installment quotes at ${RATE} req/s: p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms  (${figures.requests} requests, ${figures.failures} failed)\n`);
  if (figures.failures > 0) throw new Error('RouteGate answered quote requests with errors');
  return figures;
}

/** Alone (`node dist/bench/installment-quotes.js`): against an in-process sandbox, printing the figures only. */
async function main(): Promise<void> {
  const { startSandbox } = await import('../src/sandbox/index');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-quotes-'));
  const sandbox = await startSandbox({ dbPath: path.join(dir, 'q.db'), logLevel: 'warn', env: { ...process.env, ROUTEGATE_MASTER_KEY: 'e'.repeat(64), ROUTEGATE_RATE_LIMIT: '10000000' } });
  try {
    const figures = await measureInstallmentQuotes(sandbox.url, sandbox.account.apiKey);
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
