import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../src/lib/paths';
import { eventually } from './helpers/e2e';
import { startReceiver } from './helpers/webhook-receiver';

// The test helpers themselves: `npm test` on a machine without PostgreSQL, Redis or Chromium (simulated by pointing
// each at nothing) skips what needs them with one line each and exits 0; with CI=true the same machine fails naming
// every missing service; and the waits fail at their deadline instead of hanging.

const NOWHERE = {
  ROUTEGATE_TEST_PG_URL: 'postgres://127.0.0.1:1/test',
  ROUTEGATE_TEST_REDIS_URL: 'redis://127.0.0.1:1',
  ROUTEGATE_TEST_CHROMIUM: '/nonexistent/chromium',
};
/** Every compiled test file that uses PostgreSQL, Redis or Chromium (through their helpers), but this one. */
function filesNeedingServices(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && e.name !== 'helpers') walk(p);
      else if (e.name.endsWith('.test.js') && e.name !== 'test-helpers.test.js'
        && /helpers\/(pg|pg-scratch|pg-process|redis|browser|services)"/.test(fs.readFileSync(p, 'utf8'))) out.push(path.relative(ROOT, p));
    }
  };
  walk(path.join(ROOT, 'dist', 'test'));
  return out.sort();
}
const FILES = filesNeedingServices();

function npmTest(env: Record<string, string>) {
  const clean = { ...process.env };
  // What the outer `npm test` handed down describes this machine, not the one simulated here.
  delete clean.ROUTEGATE_TEST_SERVICES;
  delete clean.CI;
  delete clean.ROUTEGATE_TEST_DB;
  delete clean.NODE_TEST_CONTEXT; // else the inner node --test reports to this one instead of printing
  return spawnSync(process.execPath, [path.join(ROOT, 'dist', 'test', 'run-suite.js'), ...FILES], {
    cwd: ROOT, env: { ...clean, ...NOWHERE, ...env }, encoding: 'utf8', timeout: 540_000,
  });
}

test('without PostgreSQL, Redis and Chromium every test file that uses them passes, and the end says what was skipped, why and how to provide it', { timeout: 600_000 }, () => {
  assert.ok(FILES.length >= 15, FILES.join(', '));
  const run = npmTest({});
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const summary = run.stdout.slice(run.stdout.indexOf('npm test: '));
  assert.match(run.stdout, /^# fail 0$/m, "node's closing counts are kept");
  assert.match(summary, /\d+ tests skipped:/);
  assert.match(summary, /× PostgreSQL is not reachable at postgres:\/\/127\.0\.0\.1:1\/test .*set ROUTEGATE_TEST_PG_URL/);
  assert.match(summary, /× Redis is not reachable at redis:\/\/127\.0\.0\.1:1 .*redis-server .*ROUTEGATE_TEST_REDIS_URL/);
  assert.match(summary, /× Chromium is not at \/nonexistent\/chromium: install it .*ROUTEGATE_TEST_CHROMIUM/);
  assert.doesNotMatch(run.stdout, /^not ok/m);
});

test('with CI=true the same machine fails the run, naming each missing service', () => {
  const run = npmTest({ CI: 'true' });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  for (const service of ['PostgreSQL', 'Redis', 'Chromium']) assert.match(run.stderr, new RegExp(`${service} .*CI=true, so this fails instead of skipping`));
});

test('the PostgreSQL pass without a server says so once and runs nothing', () => {
  const run = npmTest({ ROUTEGATE_TEST_DB: 'postgres' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  assert.match(run.stderr, /ROUTEGATE_TEST_DB=postgres .* PostgreSQL is not reachable .*Nothing was run\./);
  assert.equal(run.stdout, '');
});

test('eventually() fails at its deadline when the probe never holds', async () => {
  const started = Date.now();
  await assert.rejects(eventually(async () => false, 200, 'a webhook that never comes'), /waited 200 ms for a webhook that never comes/);
  assert.ok(Date.now() - started < 5_000);
});

test('receiver.until() fails at its deadline, listing what did arrive', async () => {
  const receiver = await startReceiver();
  try {
    await fetch(receiver.url, { method: 'POST', body: '{"type":"other"}' });
    await assert.rejects(receiver.until((hits) => hits.some((h) => h.body?.type === 'wanted'), 200), /waited 200 ms for the webhook, in vain; received: \{"type":"other"\}/);
  } finally {
    await receiver.close();
  }
});
