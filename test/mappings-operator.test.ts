import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT } from '../src/lib/paths';
import { copyMappings, editToWrongUnit } from './helpers/wrong-unit';
import { startE2E, CUSTOMER, CARD, type E2E } from './helpers/e2e';
import { expectError, startService } from './helper';
import { DashboardClient } from './helpers/dashboard-client';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';

// Issue 41, items 2 to 5: one completeness rule for the check and start-up, a check an operator can work with,
// render, diff and reload, over real processes and real HTTP.

function routegate(args: string[], env: Record<string, string>, timeout = 60_000) {
  const res = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

/** The CLI without blocking this process: the service it calls runs here. */
function routegateAsync(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

function startServer(env: Record<string, string>) {
  const res = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], {
    env: { PATH: process.env.PATH ?? '', ROUTEGATE_MASTER_KEY: 'a'.repeat(64), PORT: '0', HOST: '127.0.0.1', ...env }, encoding: 'utf8', timeout: 60_000,
  });
  return { code: res.status, err: res.stderr };
}

test('an incomplete folder: the check and start-up name the same problems, the folder, and what to copy where', (t) => {
  const { dir, maps, cleanup } = copyMappings();
  t.after(cleanup);
  fs.rmSync(path.join(maps, 'pagarme', 'capture.request.jsonata'));
  fs.rmSync(path.join(maps, 'pagarme', 'cancel.request.jsonata'));
  fs.rmSync(path.join(maps, 'stripe', 'status.json'));
  fs.renameSync(path.join(maps, 'asaas', 'fixtures', 'refund.request'), path.join(maps, 'asaas', 'fixtures', 'refund.requets'));
  const env = { ROUTEGATE_MAPPINGS_DIR: maps };
  const check = routegate(['mappings', 'check'], env);
  assert.equal(check.code, 1, check.out);
  assert.match(check.out, new RegExp(`^mappings folder: ${maps} \\(ROUTEGATE_MAPPINGS_DIR\\)`));
  const expected = [
    /pagarme\/capture\.request\.jsonata is missing: .*cp \S+\/mappings\/pagarme\/capture\.request\.jsonata \S+\/pagarme\/ && mkdir -p \S+ && cp -r \S+\/fixtures\/capture\.request /,
    /pagarme\/cancel\.request\.jsonata is missing/,
    /stripe\/status\.json is missing: .*cp \S+\/stripe\/status\.json /,
    /asaas\/fixtures\/refund\.request\/ has no fixtures/,
    /asaas\/fixtures\/refund\.requets\/: not read/,
  ];
  for (const re of expected) assert.match(check.out, re);
  const server = startServer({ ...env, ROUTEGATE_DB: path.join(dir, 'rg.db') });
  assert.equal(server.code, 1, server.err);
  assert.match(server.err, /refusing to start: the mappings folder .* is not complete/);
  for (const re of expected) assert.match(server.err, re);
  assert.ok(!fs.existsSync(path.join(dir, 'rg.db')), 'refused before opening the database');
});

test('mappings check: failures only with a summary line, --gateway, --verbose', (t) => {
  const { maps, cleanup } = copyMappings();
  t.after(cleanup);
  const env = { ROUTEGATE_MAPPINGS_DIR: maps };
  const green = routegate(['mappings', 'check'], env);
  assert.equal(green.code, 0, green.out);
  assert.equal(green.out.trim().split('\n').length, 2, 'the folder line and the summary line');
  assert.match(green.out, /\d+ mapping files compiled .*, \d+ passed, 0 failed\n$/);
  const one = routegate(['mappings', 'check', '--gateway', 'pagarme'], env);
  assert.equal(one.code, 0);
  assert.match(one.out, /compiled \(pagarme\)/);
  const verbose = routegate(['mappings', 'check', '--gateway', 'stripe', '--verbose'], env);
  assert.match(verbose.out, /^ok {3}stripe\/fixtures\/charge\.request\//m);
  assert.doesNotMatch(verbose.out, /pagarme\//);
  const unknown = routegate(['mappings', 'check', '--gateway', 'paypal'], env);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown gateway paypal/);
});

test('mappings check: a moved key is no difference, fixture JSON errors have line and column, runtime errors name function and place', (t) => {
  const { maps, cleanup } = copyMappings();
  t.after(cleanup);
  const dir = path.join(maps, 'pagarme', 'fixtures', 'charge.response');
  const [first, second] = fs.readdirSync(dir).sort();
  // The expected output's keys in another order, one value changed: the diff shows that value only.
  const fixture = JSON.parse(fs.readFileSync(path.join(dir, first), 'utf8'));
  const reordered = Object.fromEntries(Object.entries(fixture.expected).reverse()) as Record<string, unknown>;
  reordered.amount = (reordered.amount as number) + 1;
  fs.writeFileSync(path.join(dir, first), JSON.stringify({ ...fixture, expected: reordered }, null, 2));
  fs.writeFileSync(path.join(dir, second), '{\n  "description": "broken",\n  "input": {,\n}\n');
  fs.writeFileSync(path.join(maps, 'pagarme', 'refund.request.jsonata'), '(\n  $x := 1;\n  $nope(amount)\n)\n');
  const res = routegate(['mappings', 'check', '--gateway', 'pagarme'], { ROUTEGATE_MAPPINGS_DIR: maps });
  assert.equal(res.code, 1);
  const diff = res.out.slice(res.out.indexOf(`FAIL pagarme/fixtures/charge.response/${first}`)).split('\nFAIL')[0];
  assert.equal((diff.match(/^\s+[-+] /gm) ?? []).length, 2, diff);
  assert.match(res.out, new RegExp(`FAIL pagarme/fixtures/charge.response/${second.replace('.', '\\.')}\\n\\s+invalid JSON at line 3 column \\d+`));
  assert.match(res.out, /T1006 Attempted to invoke a non-function \(function \$nope\) at mappings\/pagarme\/refund\.request\.jsonata:3:\d+/);
});

test('mappings check --update rewrites expected outputs after the diff, and never past the money guard', async (t) => {
  const { maps, cleanup } = copyMappings();
  t.after(cleanup);
  // An operator adds a metadata key: every charge.request fixture differs by it.
  const file = path.join(maps, 'pagarme', 'charge.request.jsonata');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("{'routegate_charge_id': chargeId}", "{'routegate_charge_id': chargeId, 'shop': 'loja-1'}"));
  const env = { ROUTEGATE_MAPPINGS_DIR: maps };
  const updated = routegate(['mappings', 'check', '--gateway', 'pagarme', '--update'], env);
  assert.equal(updated.code, 0, updated.out);
  assert.match(updated.out, /\+\s+"shop": "loja-1"/);
  assert.match(updated.out, /updated: pagarme\/fixtures\/charge\.request\//);
  assert.equal(routegate(['mappings', 'check', '--gateway', 'pagarme'], env).code, 0, 'green after the update');
  // The wrong unit: the guard refuses, --update writes nothing and the check stays red.
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("'amount': $c.amount,", "'amount': $toMajor($c.amount),"));
  const before = fs.readdirSync(path.join(maps, 'pagarme', 'fixtures', 'charge.request')).map((f) => fs.readFileSync(path.join(maps, 'pagarme', 'fixtures', 'charge.request', f), 'utf8'));
  const refused = routegate(['mappings', 'check', '--gateway', 'pagarme', '--update'], env);
  assert.equal(refused.code, 1);
  assert.match(refused.out, /MAPPING_AMOUNT_MISMATCH pagarme\/charge\.request: items\[\*\]\.amount/);
  const after = fs.readdirSync(path.join(maps, 'pagarme', 'fixtures', 'charge.request')).map((f) => fs.readFileSync(path.join(maps, 'pagarme', 'fixtures', 'charge.request', f), 'utf8'));
  assert.deepEqual(after, before, 'no fixture rewritten past the guard');
});

test('mappings render prints a mapping\'s output through the guard; mappings diff shows what differs from the shipped version', async (t) => {
  const { dir, maps, cleanup } = copyMappings();
  t.after(cleanup);
  const input = path.join(dir, 'refund.json');
  fs.writeFileSync(input, JSON.stringify({ amount: 500, ref: { externalId: 'x', amount: 1999 }, chargeId: 'c1' }));
  const ok = routegate(['mappings', 'render', 'mercadopago/refund.request', '--input', input], { ROUTEGATE_MAPPINGS_DIR: maps });
  assert.equal(ok.code, 0, ok.err);
  assert.deepEqual(JSON.parse(ok.out), { amount: 5 });
  await editToWrongUnit(maps, ['mercadopago']);
  const file = path.join(maps, 'mercadopago', 'refund.request.jsonata');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("{'amount': $toMajor(amount)}", "{'amount': amount}"));
  const refused = routegate(['mappings', 'render', 'mercadopago/refund.request', '--input', input], { ROUTEGATE_MAPPINGS_DIR: maps });
  assert.equal(refused.code, 1);
  assert.match(refused.err, /refused by the money guard: MAPPING_AMOUNT_MISMATCH mercadopago\/refund\.request: amount .* expected 5, rendered 500/);
  const diff = routegate(['mappings', 'diff', '--gateway', 'mercadopago'], { ROUTEGATE_MAPPINGS_DIR: maps });
  assert.equal(diff.code, 0, diff.err);
  assert.match(diff.out, /--- shipped\/mercadopago\/refund\.request\.jsonata/);
  assert.match(diff.out, /^-amount \? \{'amount': \$toMajor\(amount\)\} : \{\}$/m);
  assert.match(diff.out, /^\+amount \? \{'amount': amount\} : \{\}$/m);
  assert.match(diff.out, /files? differ, 0 only in this version, 0 only in yours/);
});

describe('reload without a restart', () => {
  let e2e: E2E;
  let maps: string;
  let cleanup: () => void;
  before(async () => {
    ({ maps, cleanup } = copyMappings());
    e2e = await startE2E({ ROUTEGATE_MAPPINGS_DIR: maps });
  });
  after(async () => {
    await e2e.close();
    cleanup();
  });

  const charge = async (key: string) => e2e.call('POST', '/api/v1/charges', { key, body: { paymentMethod: 'credit_card', amount: 1999, customer: CUSTOMER, creditCard: CARD } });

  test('/ready and /metrics report the set in use; a good edit is swapped in; a wrong unit or a failing fixture keeps the running set', async () => {
    const ready = await e2e.call('GET', '/ready');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.mappingSet.folder, maps);
    assert.match(ready.body.mappingSet.version, /^[0-9a-f]{12}$/);
    assert.deepEqual(ready.body.mappingSet.failingFixtures, []);
    const first = ready.body.mappingSet.version;
    const metrics = await e2e.call('GET', '/metrics');
    assert.match(metrics.text, new RegExp(`routegate_mappings_info\\{folder="${maps.replace(/[/.]/g, '\\$&')}",version="${first}"\\} 1`));
    assert.match(metrics.text, /routegate_mappings_failing_fixtures 0/);

    // A good edit (a metadata key, its fixtures updated by the check): swapped in, and the wire carries it.
    const file = path.join(maps, 'pagarme', 'charge.request.jsonata');
    const shipped = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, shipped.replace("{'routegate_charge_id': chargeId}", "{'routegate_charge_id': chargeId, 'shop': 'loja-1'}"));
    assert.equal(routegate(['mappings', 'check', '--gateway', 'pagarme', '--update'], { ROUTEGATE_MAPPINGS_DIR: maps }).code, 0);
    const url = e2e.sandbox.url;
    const reloaded = await routegateAsync(['mappings', 'reload', '--url', url], {});
    assert.equal(reloaded.code, 0, reloaded.err);
    assert.match(reloaded.out, new RegExp(`reloaded .*: version ${first} -> [0-9a-f]{12}`));
    const key = await e2e.account({ primaryGateway: 'pagarme', gatewayFallbacks: [] });
    await e2e.control.reset();
    assert.equal((await charge(key)).status, 201);
    const sent = (await e2e.control.requests('pagarme')).find((r) => r.method === 'POST' && r.path === '/core/v5/orders');
    assert.equal((sent!.body as { metadata: Record<string, string> }).metadata.shop, 'loja-1');
    const second = (await e2e.call('GET', '/ready')).body.mappingSet.version;
    assert.notEqual(second, first);

    // The wrong unit, fixtures agreeing: refused, the running set serves on (the right amount reaches the gateway).
    await editToWrongUnit(maps, [...GATEWAY_IDS]);
    const refused = await e2e.call('POST', '/ops/mappings/reload');
    assert.equal(refused.status, 200);
    assert.equal(refused.body.data.reloaded, false);
    for (const g of GATEWAY_IDS) {
      assert.ok(refused.body.data.problems.some((p: string) => new RegExp(`MAPPING_AMOUNT_MISMATCH ${g}/charge\\.request`).test(p)), `${g}: ${JSON.stringify(refused.body.data.problems)}`);
    }
    await e2e.control.reset();
    const res = await charge(key);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.amount, 1999);
    assert.deepEqual((await e2e.control.ledger('pagarme')).map((c) => c.amount), [1999]);
    assert.equal((await e2e.call('GET', '/ready')).body.mappingSet.version, second);

    // A failing fixture (the mapping fine again, one fixture wrong): refused too, naming the fixture.
    fs.writeFileSync(file, shipped);
    const fixtures = path.join(maps, 'pagarme', 'fixtures', 'capture.request');
    const name = fs.readdirSync(fixtures).sort()[0];
    const f = JSON.parse(fs.readFileSync(path.join(fixtures, name), 'utf8'));
    fs.writeFileSync(path.join(fixtures, name), JSON.stringify({ ...f, expected: { wrong: true } }));
    const cli = await routegateAsync(['mappings', 'reload', '--url', url], {});
    assert.equal(cli.code, 1);
    assert.match(cli.err, /reload refused, the running set \(version [0-9a-f]{12}\) is kept/);
    assert.match(cli.err, new RegExp(`pagarme/fixtures/capture\\.request/${name.replace('.', '\\.')}`));
    assert.match((await e2e.call('GET', '/metrics')).text, /routegate_mappings_reloads_total\{result="refused"\} 2/);
  });

  test('the reload endpoint wants the operator token when one is set', async () => {
    const guarded = await startE2E({ ROUTEGATE_MAPPINGS_DIR: maps, ROUTEGATE_METRICS_TOKEN: 'operator-token-0123456789' });
    try {
      expectError(await guarded.call('POST', '/ops/mappings/reload'), 'UNAUTHORIZED', 401);
      const ok = await guarded.call('GET', '/ops/mappings', { headers: { authorization: 'Bearer operator-token-0123456789' } });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.data.folder, maps);
    } finally {
      await guarded.close();
    }
  });
});

test('the dashboard shows operators the mapping set in use and reloads it, saying why a reload was refused', async (t) => {
  const { maps, cleanup } = copyMappings();
  t.after(cleanup);
  const admin = { email: 'ops@example.com', password: 'a-long-operator-password-1' };
  const svc = await startService({ ROUTEGATE_MAPPINGS_DIR: maps, ROUTEGATE_ADMIN_EMAIL: admin.email, ROUTEGATE_ADMIN_PASSWORD: admin.password, ROUTEGATE_RATE_LIMIT: '100000' });
  t.after(() => svc.close());
  const c = new DashboardClient(svc.url);
  await c.login(admin.email, admin.password);
  const page = await c.get('/dashboard/mappings');
  assert.equal(page.status, 200);
  assert.ok(page.text.includes(maps), 'names the folder');
  const version = /data-version>([0-9a-f]{12})</.exec(page.text)?.[1];
  assert.ok(version);
  await editToWrongUnit(maps, ['asaas']);
  const refused = await c.post('/dashboard/mappings/reload');
  assert.equal(refused.status, 303);
  const after = await c.follow(refused.location!);
  assert.match(after.text, /Reload refused: \d+ problems?; the running set \(version [0-9a-f]{12}\) is kept/);
  assert.match(after.text, /MAPPING_AMOUNT_MISMATCH asaas\/charge\.request/);
  assert.equal(/data-version>([0-9a-f]{12})</.exec(after.text)?.[1], version, 'the running set is kept');
  // An owner may not reload.
  assert.equal((await new DashboardClient(svc.url).get('/dashboard/mappings')).status, 303, 'signed out: to the sign-in page');
});
