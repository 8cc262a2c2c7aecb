import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../src/lib/paths';
import Database from 'better-sqlite3';
import { startService } from './helper';
import { DashboardClient } from './helpers/dashboard-client';

function routegate(args: string[], env: Record<string, string>) {
  const res = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 20_000,
  });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-cli-'));
  return { dir, env: { ROUTEGATE_DB: path.join(dir, 'rg.db'), ROUTEGATE_MASTER_KEY: 'c'.repeat(64) } };
};

test('accounts create prints one JSON line with id, apiKey and webhookSigningSecret; list, deactivate, activate and rotate work', () => {
  const { env } = tmp();
  const created = routegate(['accounts', 'create', '--name', 'Loja CLI', '--email', 'cli@example.com'], env);
  assert.equal(created.code, 0, created.err);
  const lines = created.out.trim().split('\n');
  assert.equal(lines.length, 1);
  const account = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(account), ['id', 'apiKey', 'webhookSigningSecret']);
  assert.match(account.id, /^[0-9a-f-]{36}$/);
  assert.match(account.apiKey, /^tk_[A-Za-z0-9]{32,}$/);
  assert.match(account.webhookSigningSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);

  const list = routegate(['accounts', 'list'], env);
  assert.equal(list.code, 0);
  const rows = list.out.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(rows.length, 1);
  assert.equal(rows[0].id, account.id);
  assert.equal(rows[0].active, true);
  assert.ok(!list.out.includes(account.apiKey), 'list never shows keys');
  assert.ok(!list.out.includes(account.webhookSigningSecret), 'nor signing secrets');

  assert.equal(routegate(['accounts', 'deactivate', account.id], env).code, 0);
  assert.equal(JSON.parse(routegate(['accounts', 'list'], env).out).active, false);
  assert.equal(routegate(['accounts', 'activate', account.id], env).code, 0);
  assert.equal(JSON.parse(routegate(['accounts', 'list'], env).out).active, true);

  const rotated = routegate(['keys', 'rotate', account.id], env);
  assert.equal(rotated.code, 0);
  const r = JSON.parse(rotated.out);
  assert.equal(r.id, account.id);
  assert.notEqual(r.apiKey, account.apiKey);

  const secret = routegate(['webhooks', 'rotate-secret', account.id], env);
  assert.equal(secret.code, 0, secret.err);
  const s = JSON.parse(secret.out);
  assert.deepEqual(Object.keys(s), ['id', 'webhookSigningSecret', 'previousSecretsExpireAt']);
  assert.match(s.webhookSigningSecret, /^whsec_/);
  assert.notEqual(s.webhookSigningSecret, account.webhookSigningSecret);
  const overlap = Date.parse(s.previousSecretsExpireAt) - Date.now();
  assert.ok(overlap > 23.9 * 3600_000 && overlap <= 24 * 3600_000, `the previous secret signs for 24 hours (${overlap} ms)`);
  assert.equal(routegate(['webhooks', 'rotate-secret', 'no-such-account'], env).code, 1);
  // Stored sealed: the database file never holds the secret in clear.
  const db = fs.readFileSync(env.ROUTEGATE_DB);
  assert.ok(!db.includes(Buffer.from(account.webhookSigningSecret.slice(6))) && !db.includes(Buffer.from(s.webhookSigningSecret.slice(6))));
});

test('a key rotated by the CLI is refused by the running service at once', async () => {
  const { env } = tmp();
  const account = JSON.parse(routegate(['accounts', 'create', '--name', 'Loja', '--email', 'l@example.com'], env).out);
  const svc = await startService({ ROUTEGATE_DB: env.ROUTEGATE_DB, ROUTEGATE_MASTER_KEY: env.ROUTEGATE_MASTER_KEY });
  try {
    assert.equal((await svc.call('GET', '/api/v1/clients/me', { key: account.apiKey })).status, 200);
    const rotated = JSON.parse(routegate(['keys', 'rotate', account.id], env).out);
    assert.equal((await svc.call('GET', '/api/v1/clients/me', { key: account.apiKey })).status, 401);
    assert.equal((await svc.call('GET', '/api/v1/clients/me', { key: rotated.apiKey })).status, 200);
    routegate(['accounts', 'deactivate', account.id], env);
    assert.equal((await svc.call('GET', '/api/v1/clients/me', { key: rotated.apiKey })).status, 403);
  } finally {
    await svc.close();
  }
});

test('bad arguments print usage on stderr and exit 2', () => {
  const { env } = tmp();
  for (const args of [[], ['accounts'], ['accounts', 'create', '--name', 'x'], ['accounts', 'create', '--email', 'x@y.co'],
    ['accounts', 'create', '--name', 'x', '--email', 'not-an-email'], ['keys', 'rotate'], ['accounts', 'deactivate'], ['frobnicate'],
    ['accounts', 'create', '--name', 'x', '--email', 'x@y.co', '--nmae', 'typo'], ['accounts', 'list', '--all'], ['accounts', 'list', 'extra'],
    ['keys', 'rotate', 'a', 'b'], ['emulators', '--port'], ['emulators', '--port', 'http'], ['mappings'], ['mappings', 'verify'], ['--frobnicate'],
    ['accounts', 'create', '--name'], ['operators', 'create'], ['operators', 'create', '--email', 'nope'], ['operators', 'create', '--email', 'a@b.co', '--password', 'x']]) {
    const res = routegate(args, env);
    assert.equal(res.code, 2, `${args.join(' ')}: ${res.err}`);
    assert.match(res.err, /usage: routegate/);
    assert.equal(res.out, '');
  }
});

test('an unknown account id exits 1 with a message', () => {
  const { env } = tmp();
  const res = routegate(['accounts', 'deactivate', '00000000-0000-0000-0000-000000000000'], env);
  assert.equal(res.code, 1);
  assert.match(res.err, /no account/);
});

test('without ROUTEGATE_MASTER_KEY outside production a key file is generated with a warning', () => {
  const { dir } = tmp();
  const res = routegate(['accounts', 'list'], { ROUTEGATE_DB: path.join(dir, 'rg.db') });
  assert.equal(res.code, 0, res.err);
  assert.match(res.err, /warning: ROUTEGATE_MASTER_KEY is not set: generated/);
  assert.ok(fs.existsSync(path.join(dir, 'master.key')));
});

test('a bad configuration value stops with a clear message', () => {
  const { env } = tmp();
  const res = routegate(['accounts', 'list'], { ...env, ROUTEGATE_MASTER_KEY: 'short' });
  assert.equal(res.code, 1);
  assert.match(res.err, /ROUTEGATE_MASTER_KEY must be 32 bytes/);
});

test('--help on every command and group prints its usage on stdout and exits 0; --version prints the version', () => {
  const { env } = tmp();
  const top = routegate(['--help'], env);
  assert.equal(top.code, 0);
  assert.equal(top.err, '');
  for (const name of ['accounts create', 'accounts list', 'accounts deactivate', 'accounts activate', 'keys rotate', 'webhooks rotate-secret', 'operators create', 'emulators', 'mappings check']) {
    assert.ok(top.out.includes(name), `top-level help lists ${name}`);
    const res = routegate([...name.split(' '), '--help'], env);
    assert.equal(res.code, 0, `${name} --help: ${res.err}`);
    assert.match(res.out, new RegExp(`^usage: routegate ${name}`), name);
    assert.equal(routegate(['help', ...name.split(' ')], env).out, res.out, `help ${name}`);
    assert.equal(routegate([...name.split(' '), '-h'], env).out, res.out, `${name} -h`);
  }
  for (const group of ['accounts', 'keys', 'operators', 'mappings']) {
    const res = routegate([group, '--help'], env);
    assert.equal(res.code, 0);
    assert.match(res.out, new RegExp(`^usage: routegate ${group} <command>`));
  }
  assert.match(top.out, /Exit codes: 0 .*1 .*2 /);
  const version = routegate(['--version'], env);
  assert.equal(version.code, 0);
  assert.equal(version.out.trim(), JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
  assert.equal(routegate(['-V'], env).out, version.out);
  // --help never touches the database.
  assert.ok(!fs.existsSync(env.ROUTEGATE_DB));
});

test('an unknown flag is named in the error, with the usage of the command it was given to', () => {
  const { env } = tmp();
  const res = routegate(['accounts', 'create', '--name', 'x', '--email', 'x@y.co', '--nmae', 'typo'], env);
  assert.equal(res.code, 2);
  assert.match(res.err, /Unknown option '--nmae'/);
  assert.match(res.err, /usage: routegate accounts create --name NAME --email EMAIL/);
  assert.ok(!fs.existsSync(env.ROUTEGATE_DB), 'nothing was created');
});

test('emulators on a port already in use: one clear line on stderr and exit 1, no stack trace', async () => {
  const { env } = tmp();
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const { port } = blocker.address() as net.AddressInfo;
  try {
    const res = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), 'emulators', '--port', String(port)], {
      env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 20_000,
    });
    assert.equal(res.status, 1, res.stderr);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, new RegExp(`127\\.0\\.0\\.1:${port}.*already in use`));
    assert.doesNotMatch(res.stderr, /\n\s+at /);
  } finally {
    blocker.close();
  }
});

test('operators create makes a dashboard operator who can sign in; the password comes from stdin or is generated once', async () => {
  const { env } = tmp();
  const fromStdin = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), 'operators', 'create', '--email', 'ops@example.com', '--password-stdin'], {
    env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 20_000, input: 'a long operator password\n',
  });
  assert.equal(fromStdin.status, 0, fromStdin.stderr);
  const made = JSON.parse(fromStdin.stdout);
  assert.deepEqual(Object.keys(made), ['id', 'email']);
  assert.equal(made.email, 'ops@example.com');

  const generated = routegate(['operators', 'create', '--email', 'ops2@example.com'], env);
  assert.equal(generated.code, 0, generated.err);
  const second = JSON.parse(generated.out);
  assert.match(second.password, /^[A-Za-z0-9]{20}$/);

  const again = routegate(['operators', 'create', '--email', 'OPS@example.com'], env);
  assert.equal(again.code, 1);
  assert.match(again.err, /already exists/);
  const short = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), 'operators', 'create', '--email', 'ops3@example.com', '--password-stdin'], {
    env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 20_000, input: 'short\n',
  });
  assert.equal(short.status, 1);
  assert.match(short.stderr, /at least 12 characters/);

  const db = new Database(env.ROUTEGATE_DB, { readonly: true });
  const hashes = db.prepare('SELECT password_hash FROM operators ORDER BY email').pluck().all() as string[];
  db.close();
  assert.equal(hashes.length, 2);
  for (const h of hashes) assert.match(h, /^\$argon2id\$/, 'stored as an argon2id hash');

  const svc = await startService({ ROUTEGATE_DB: env.ROUTEGATE_DB, ROUTEGATE_MASTER_KEY: env.ROUTEGATE_MASTER_KEY });
  try {
    for (const [email, password] of [['ops@example.com', 'a long operator password'], ['ops2@example.com', second.password]]) {
      const client = new DashboardClient(svc.url);
      assert.equal((await client.login(email, password)).location, '/dashboard', email);
      assert.equal((await client.get('/dashboard')).location, '/dashboard/accounts', 'an operator lands on the accounts page');
    }
  } finally {
    await svc.close();
  }
});
