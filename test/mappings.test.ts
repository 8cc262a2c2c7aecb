import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runFixtures } from '../src/mapping/fixtures';
import { loadMappings, MappingLoadError } from '../src/mapping/loader';
import { toMajor, toMinor } from '../src/mapping/functions';

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
