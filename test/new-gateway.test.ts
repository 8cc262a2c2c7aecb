import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, MAPPINGS_DIR } from '../src/lib/paths';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { loadMappings } from '../src/mapping/loader';
import { runFixtures } from '../src/mapping/fixtures';
import { newGateway, NewGatewayError, TEMPLATE_ID } from '../src/cli/new-gateway';

// docs/adding-a-gateway.md, proved: a sixth gateway generated from the template passes the conformance suite on
// card and pix, and the only existing file the generator changes is the registry, by one line.

test('the template is not registered, and its mappings pass their fixtures, each file with a header', async () => {
  assert.ok(!GATEWAY_IDS.includes(TEMPLATE_ID));
  const dir = path.join(MAPPINGS_DIR, TEMPLATE_ID);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonata'));
  assert.ok(files.length >= 4, files.join(', '));
  for (const f of files) assert.match(fs.readFileSync(path.join(dir, f), 'utf8'), /^\/\*[\s\S]+?\*\//, `${f} starts with a /* */ header`);
  const results = await runFixtures(MAPPINGS_DIR, loadMappings(MAPPINGS_DIR, [TEMPLATE_ID]));
  assert.deepEqual(results.filter((r) => !r.ok).map((r) => `${r.file}: ${r.message}`), []);
  assert.deepEqual([...new Set(results.map((r) => r.mapping))].sort(), files.map((f) => f.replace(/\.jsonata$/, '')).sort(), 'every mapping has fixtures');
});

// What tsconfig.json compiles (its include), and what the compiled tests read.
const COPIED = ['src', 'bench', 'mappings', 'schemas', 'test', 'package.json', 'tsconfig.json'];

function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    const full = path.join(root, rel);
    if (fs.statSync(full).isDirectory()) for (const e of fs.readdirSync(full)) walk(path.join(rel, e));
    else out.set(rel, fs.readFileSync(full, 'utf8'));
  };
  for (const entry of COPIED) walk(entry);
  return out;
}

function run(cmd: string, args: string[], cwd: string, timeout: number) {
  // Without NODE_TEST_CONTEXT: a `node --test` started from a test would report to this runner instead of printing TAP.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout, env });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, stdout: r.stdout ?? '' };
}

test('new-gateway fakepay: one registry line, and the conformance suite then covers fakepay on card and pix', { timeout: 840_000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-new-gateway-'));
  try {
    for (const entry of COPIED) fs.cpSync(path.join(ROOT, entry), path.join(tmp, entry), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tmp, 'node_modules'), 'dir');
    const before = snapshot(tmp);

    // Refusals change nothing.
    assert.throws(() => newGateway(tmp, TEMPLATE_ID), NewGatewayError);
    assert.throws(() => newGateway(tmp, 'Fake-Pay'), NewGatewayError);
    assert.throws(() => newGateway(tmp, 'stripe'), /already exists/);

    // `npm run new-gateway` is tsc then this script; the script is already compiled here, so one build is saved.
    const script = JSON.parse(before.get('package.json')!).scripts['new-gateway'] as string;
    assert.match(script, /node dist\/src\/cli\/new-gateway\.js$/);
    const gen = run(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli', 'new-gateway.js'), 'fakepay'], tmp, 120_000);
    assert.equal(gen.status, 0, gen.out);
    assert.equal(JSON.parse(gen.stdout.trim().split('\n').at(-1)!).gateway, 'fakepay');

    // Like `git diff`: the only existing file changed is the registry, by one added line.
    const after = snapshot(tmp);
    const changed = [...before.keys()].filter((f) => after.get(f) !== before.get(f));
    assert.deepEqual(changed, [path.join('src', 'gateways', 'registry.ts')]);
    const [was, now] = [before.get(changed[0])!.split('\n'), after.get(changed[0])!.split('\n')];
    assert.equal(now.length, was.length + 1);
    const added = now.findIndex((l, i) => l !== was[i]);
    assert.equal(now[added].trim(), "'fakepay',");
    assert.deepEqual([...now.slice(0, added), ...now.slice(added + 1)], was);
    const created = [...after.keys()].filter((f) => !before.has(f));
    assert.ok(created.length > 10, created.join(', '));
    assert.deepEqual(created.filter((f) => !f.startsWith(path.join('src', 'gateways', 'fakepay') + path.sep) && !f.startsWith(path.join('mappings', 'fakepay') + path.sep)), []);
    assert.ok(!created.some((f) => /template/i.test(f) || /template/i.test(after.get(f)!)), 'every name is renamed');
    assert.throws(() => newGateway(tmp, 'fakepay'), /already exists/);

    const build = run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], tmp, 240_000);
    assert.equal(build.status, 0, build.out);
    const files = fs.readdirSync(path.join(tmp, 'dist', 'test', 'conformance')).filter((f) => f.endsWith('.test.js')).sort()
      .map((f) => path.join('dist', 'test', 'conformance', f));
    const suite = run(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=tap', ...files], tmp, 420_000); // a whole build's conformance suite: minutes on a loaded 2-core machine
    assert.equal(suite.status, 0, suite.out.split('\n').filter((l) => /not ok|Error|expected|actual/.test(l)).slice(0, 40).join('\n'));
    const passed = suite.stdout.split('\n').filter((l) => /^\s*ok \d+ - /.test(l)).map((l) => l.replace(/^\s*ok \d+ - /, ''));
    for (const name of [
      'fakepay credit_card: charge approves with normalized fields',
      'fakepay pix: charge is pending, then paid by the payer with normalized fields',
      'fakepay debit_card: charge is 422 GATEWAY_UNSUPPORTED_OPERATION without calling fakepay',
      'fakepay boleto: charge is 422 GATEWAY_UNSUPPORTED_OPERATION without calling fakepay',
      'fakepay credit_card: a pre-authorization is approved uncaptured, then captured once',
      'fakepay credit_card: a partial refund keeps approved and counts refundedAmount; more than the rest is refused',
      'fakepay pix: a pending charge is cancelled once',
      'fakepay pix: a paid charge is refunded in full, the refund recorded',
      'fakepay pix: capture is 422 GATEWAY_UNSUPPORTED_OPERATION without calling fakepay',
    ]) assert.ok(passed.some((p) => p.startsWith(name)), `${name} ran and passed`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
