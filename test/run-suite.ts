import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { HOW_TO_PROVIDE, SERVICE_NAMES, ciFailure, probeServices, skipLine } from './helpers/services';

// `npm test`: node's test runner over every compiled test file (or the files named on the command line), after one
// probe of the services some tests need (test/helpers/services.ts), and followed by the list of what was skipped and
// why, so a green run never hides that a store or the browser was not tested. Node's own output, closing counts
// included, is passed through untouched.

/**
 * A test that runs past this fails instead of hanging the run. On Node 20 `--test-timeout` also bounds each test
 * file as a whole (the runner's test for the file inherits it), so it is set above the longest file on a busy
 * 2-core machine (test/new-gateway.test.ts builds and runs a conformance suite of its own); waits inside tests have their own, shorter deadlines (eventually(), receiver.until()).
 */
export const DEFAULT_TEST_TIMEOUT_MS = 900_000;

const DIST_TEST = __dirname;

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p));
    else if (e.name.endsWith('.test.js')) out.push(path.relative(process.cwd(), p));
  }
  return out.sort();
}

async function main(): Promise<number> {
  const ci = process.env.CI === 'true';
  const probe = await probeServices();
  const missing = SERVICE_NAMES.filter((s) => probe[s]);
  if (ci && missing.length) {
    for (const s of missing) console.error(`npm test: ${ciFailure(s, probe[s])}`);
    return 1;
  }
  if (process.env.ROUTEGATE_TEST_DB === 'postgres' && probe.postgres) {
    console.error(`npm test: ROUTEGATE_TEST_DB=postgres runs the suite on PostgreSQL, but ${probe.postgres}: ${HOW_TO_PROVIDE.postgres}. Nothing was run.`);
    return 0;
  }
  for (const s of missing) console.error(`npm test: tests that need ${s} are skipped: ${skipLine(s, probe[s])}`);

  const files = process.argv.slice(2).length ? process.argv.slice(2) : testFiles(DIST_TEST);
  const skipsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-skips-')), 'skips.jsonl');
  // Node's default: the spec reporter on a terminal, TAP otherwise (CI reads TAP's closing counts).
  const tap = !process.stdout.isTTY;
  const args = [
    '--test', '--test-concurrency=2', `--test-timeout=${DEFAULT_TEST_TIMEOUT_MS}`,
    `--test-reporter=${tap ? 'tap' : 'spec'}`, '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(path.join(DIST_TEST, 'helpers', 'skip-reporter.js')).href}`, `--test-reporter-destination=${skipsFile}`,
    ...files,
  ];
  const child = spawn(process.execPath, args, {
    stdio: 'inherit',
    env: { ...process.env, ROUTEGATE_TEST_SERVICES: JSON.stringify(probe) },
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));

  const skips = fs.existsSync(skipsFile)
    ? fs.readFileSync(skipsFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { reason: string })
    : [];
  fs.rmSync(path.dirname(skipsFile), { recursive: true, force: true });
  const byReason = new Map<string, number>();
  for (const s of skips) byReason.set(s.reason, (byReason.get(s.reason) ?? 0) + 1);
  const mark = tap ? '# ' : '';
  console.log(`${mark}npm test: ${skips.length} test${skips.length === 1 ? '' : 's'} skipped${skips.length ? ':' : ''}`);
  for (const [reason, n] of [...byReason].sort((a, b) => b[1] - a[1])) console.log(`${mark}  ${n} × ${reason}`);
  return code;
}

main().then((code) => process.exit(code), (err) => {
  console.error(err);
  process.exit(1);
});
