import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runFixtures } from '../src/mapping/fixtures';
import { loadMappings, MappingLoadError } from '../src/mapping/loader';
import { toMajor, toMinor } from '../src/mapping/functions';
import { spawnSync } from 'node:child_process';
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
