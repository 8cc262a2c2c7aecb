import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runFixtures } from '../src/mapping/fixtures';
import { assertShippedMappings, loadMappings, MappingLoadError } from '../src/mapping/loader';
import { toMajor, toMinor } from '../src/mapping/functions';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { MAPPINGS_DIR, ROOT } from '../src/lib/paths';

test('every mapping fixture in mappings/ passes', async () => {
  const results = await runFixtures();
  const failures = results.filter((r) => !r.ok).map((r) => `${r.file}: ${r.message}`);
  assert.deepEqual(failures, []);
});

test('money helpers convert without floating error', () => {
  assert.equal(toMinor(10.99), 1099);
  assert.equal(toMinor(19.99), 1999);
  assert.equal(toMinor(0.07), 7);
  assert.equal(toMinor('1234.56'), 123456);
  assert.equal(toMajor(1999), 19.99);
  assert.equal(toMajor(100), 1);
  assert.equal(toMajor(1), 0.01);
  for (let cents = 100; cents < 100_000; cents += 7) assert.equal(toMinor(toMajor(cents)), cents);
});

test('a broken mapping file stops loading, naming the file and the JSONata error', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-map-'));
  fs.mkdirSync(path.join(dir, 'stripe'));
  fs.writeFileSync(path.join(dir, 'stripe', 'charge.request.jsonata'), '{ "amount": charge.amount ');
  assert.throws(() => loadMappings(dir), (err: unknown) => {
    assert.ok(err instanceof MappingLoadError);
    assert.match(err.message, /stripe\/charge\.request\.jsonata/);
    assert.match(err.message, /S0\d{3}/);
    return true;
  });
});

test('a fixture that asserts nothing and a mapping without fixtures both fail the check', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-map-'));
  fs.mkdirSync(path.join(dir, 'pagarme', 'fixtures', 'a'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'pagarme', 'a.jsonata'), 'x + 1');
  fs.writeFileSync(path.join(dir, 'pagarme', 'b.jsonata'), 'x');
  fs.writeFileSync(path.join(dir, 'pagarme', 'fixtures', 'a', '001-nothing.json'), JSON.stringify({ description: 'no assertion', input: { x: 1 } }));
  fs.writeFileSync(path.join(dir, 'pagarme', 'fixtures', 'a', '002-ok.json'), JSON.stringify({ description: 'adds one', input: { x: 1 }, expected: 2 }));
  const results = await runFixtures(dir);
  const byFile = Object.fromEntries(results.map((r) => [r.file, r]));
  assert.equal(byFile['pagarme/fixtures/a/001-nothing.json'].ok, false);
  assert.match(byFile['pagarme/fixtures/a/001-nothing.json'].message!, /asserts nothing/);
  assert.equal(byFile['pagarme/fixtures/a/002-ok.json'].ok, true);
  assert.equal(byFile['pagarme/fixtures/b'].ok, false);
  assert.match(byFile['pagarme/fixtures/b'].message!, /no fixtures/);
});

test('the service refuses to start on a broken mapping, naming the file and the JSONata error; mappings check fails too', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-maps-'));
  const maps = path.join(dir, 'mappings');
  fs.cpSync(MAPPINGS_DIR, maps, { recursive: true });
  fs.writeFileSync(path.join(maps, 'stripe', 'charge.request.jsonata'), '{ "amount": charge.amount, ');
  const env = { PATH: process.env.PATH ?? '', ROUTEGATE_MAPPINGS_DIR: maps, ROUTEGATE_DB: path.join(dir, 'rg.db'), ROUTEGATE_MASTER_KEY: 'a'.repeat(64), PORT: '0' };
  try {
    const server = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], { env, encoding: 'utf8', timeout: 20_000 });
    assert.equal(server.status, 1);
    assert.match(server.stderr, /mappings\/stripe\/charge\.request\.jsonata/);
    assert.match(server.stderr, /S0\d{3}|S0203|position/);
    assert.doesNotMatch(server.stderr, /\n\s+at /, 'a clear message, not a stack trace');

    const check = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), 'mappings', 'check'], { env, encoding: 'utf8', timeout: 20_000 });
    assert.notEqual(check.status, 0);
    assert.match(check.stderr + check.stdout, /stripe\/charge\.request\.jsonata/);

    const missing = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], { env: { ...env, ROUTEGATE_MAPPINGS_DIR: path.join(dir, 'nope') }, encoding: 'utf8', timeout: 20_000 });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /ROUTEGATE_MAPPINGS_DIR/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function copyMappings(): { dir: string; maps: string; env: Record<string, string> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-maps-'));
  const maps = path.join(dir, 'mappings');
  fs.cpSync(MAPPINGS_DIR, maps, { recursive: true });
  return { dir, maps, env: { PATH: process.env.PATH ?? '', ROUTEGATE_MAPPINGS_DIR: maps, ROUTEGATE_DB: path.join(dir, 'rg.db'), ROUTEGATE_MASTER_KEY: 'a'.repeat(64), PORT: '0', HOST: '127.0.0.1' } };
}
const check = (env: Record<string, string>) => spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), 'mappings', 'check'], { env, encoding: 'utf8', timeout: 20_000 });

test('mappings check shows a failing fixture as a diff of expected and actual', async (t) => {
  const { dir, maps, env } = copyMappings();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fixtureDir = path.join(maps, 'pagarme', 'fixtures', 'charge.response');
  const file = fs.readdirSync(fixtureDir).sort()[0];
  const fixture = JSON.parse(fs.readFileSync(path.join(fixtureDir, file), 'utf8'));
  const amount = fixture.expected.amount;
  fixture.expected.amount = amount + 1;
  fs.writeFileSync(path.join(fixtureDir, file), JSON.stringify(fixture, null, 2));
  const res = check(env);
  assert.equal(res.status, 1);
  const out = res.stdout;
  assert.match(out, new RegExp(`FAIL pagarme/fixtures/charge.response/${file.replace('.', '\\.')}`));
  assert.match(out, /--- expected\n\s+\+\+\+ actual/);
  assert.match(out, new RegExp(`\\n\\s+-\\s+"amount": ${amount + 1},?\\n\\s+\\+\\s+"amount": ${amount},?\\n`));
  assert.doesNotMatch(out, /"status"[^\n]*\n[^\n]*"status"/, 'unchanged fields are context, not differences');
  assert.match(out, /1 failed$/m);
});

test('a JSONata syntax error is reported as file:line:column with the line and a caret', async (t) => {
  const { dir, maps, env } = copyMappings();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(maps, 'stripe', 'charge.request.jsonata'), '/* header */\n{\n  "amount": charge.amount,\n  "currency": ) \n}\n');
  fs.writeFileSync(path.join(maps, 'asaas', 'refund.request.jsonata'), '{ "value": $toMajor(amount }');
  const res = check(env);
  assert.equal(res.status, 1);
  assert.match(res.stdout, /FAIL mappings\/stripe\/charge\.request\.jsonata:4:15: S0\d{3} .+\n\s+4 \|   "currency": \) \n\s+\| {15}\^/);
  assert.match(res.stdout, /FAIL mappings\/asaas\/refund\.request\.jsonata:1:\d+: S0\d{3}/, 'every broken file is reported, not only the first');
  assert.match(res.stdout, /2 mapping file problems/);
});

test('status.json may map only to normalized statuses: a typo fails the check and start-up', async (t) => {
  const { dir, maps, env } = copyMappings();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(maps, 'pagarme', 'status.json');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"paid": "approved"', '"paid": "aproved"'));
  const res = check(env);
  assert.equal(res.status, 1);
  assert.match(res.stdout, /mappings\/pagarme\/status\.json:2: "paid" maps to "aproved", which is not a normalized status \(approved, pending, processing, declined, cancelled, refunded, failed, disputed, charged_back\)/);
  const server = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], { env, encoding: 'utf8', timeout: 20_000 });
  assert.equal(server.status, 1);
  assert.match(server.stderr, /status\.json:2: "paid" maps to "aproved"/);
});

test('npm start refuses to start when a fixture fails; the emergency override starts it and logs it as an error', async (t) => {
  const { dir, maps, env } = copyMappings();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const mapping = path.join(maps, 'mercadopago', 'refund.request.jsonata');
  fs.writeFileSync(mapping, `${fs.readFileSync(mapping, 'utf8')}\n~> | $ | {"extra": true} |`);
  const refused = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], { env, encoding: 'utf8', timeout: 20_000 });
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /refusing to start: \d+ mapping fixtures? fail/);
  assert.match(refused.stderr, /mercadopago\/fixtures\/refund\.request\//);
  assert.match(refused.stderr, /ROUTEGATE_ALLOW_FAILING_MAPPINGS=true/);
  assert.ok(!fs.existsSync(path.join(dir, 'rg.db')), 'refused before opening the database');

  for (const [extraEnv, args] of [[{ ROUTEGATE_ALLOW_FAILING_MAPPINGS: 'true' }, []], [{}, ['--allow-failing-mappings']]] as const) {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js'), ...args], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: any[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${JSON.stringify(lines)}`)), 20_000);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(JSON.parse(line));
        if (/Server listening/.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const loud = lines.find((l) => /FAILING MAPPING FIXTURE/.test(l.msg));
    assert.ok(loud, JSON.stringify(lines));
    assert.equal(loud.level, 50, 'logged at error level');
    assert.ok(loud.failingFixtures.some((f: string) => f.startsWith('mercadopago/fixtures/refund.request/')));
  }
});

test('an operator mappings folder missing a mapping this version ships is refused at start-up, naming the file to copy', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-mappings-'));
  try {
    fs.cpSync(MAPPINGS_DIR, dir, { recursive: true });
    assert.doesNotThrow(() => assertShippedMappings(dir, loadMappings(dir)));
    fs.rmSync(path.join(dir, 'pagarme', 'capture.request.jsonata'));
    assert.throws(() => assertShippedMappings(dir, loadMappings(dir)), (e: Error) => e instanceof MappingLoadError && /pagarme\/capture\.request\.jsonata is missing.*copy it/.test(e.message));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
