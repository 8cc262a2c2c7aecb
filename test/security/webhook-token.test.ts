import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../../src/lib/paths';
import { startService, type Service } from '../helper';
import { clock } from '../../src/lib/clock';
import { DashboardClient } from '../helpers/dashboard-client';

// Issue 40 item 5: webhook tokens are masked in log lines like other secrets, and rotate with an overlap:
// `routegate webhooks rotate-token ID [--keep-old-hours N]` prints {"id","webhookToken","webhookUrls"}; the old URLs
// keep working N hours (default 24), answer 404 after, or at once with 0. The operator's dashboard does the same.

const services: Service[] = [];
after(async () => {
  for (const s of services) await s.close();
});

function routegate(args: string[], env: Record<string, string>) {
  const res = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 20_000,
  });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

/** The receiver's answer for a token: 404 WEBHOOK_TOKEN_UNKNOWN when no account has it (any other answer: it has). */
const receive = (svc: Service, token: string) => svc.call('POST', `/api/v1/webhooks/stripe/${token}`, { rawBody: '{"id":"evt_x","type":"charge.updated"}', headers: { 'content-type': 'application/json' } });

test('the webhook token never appears whole in a log line', async () => {
  const svc = await startService();
  services.push(svc);
  const { id } = await svc.createAccount();
  const token = (await svc.app.store.accounts.get(id))!.webhookToken;
  const res = await receive(svc, token);
  assert.notEqual(res.status, 404, res.text);
  const unknown = await receive(svc, `wh_${'Z'.repeat(32)}`);
  assert.equal(unknown.status, 404);
  await svc.call('POST', `/api/v1/webhooks/nope/${token}?x=1`, { rawBody: '{}', headers: { 'content-type': 'application/json' } });
  const lines = svc.logs.join('');
  assert.ok(lines.includes('/api/v1/webhooks/stripe/'), 'the receiver requests were logged');
  assert.ok(!lines.includes(token), 'the token is not in any log line');
  assert.ok(!lines.includes('Z'.repeat(32)), 'nor is a token that was tried');
  assert.match(lines, new RegExp(`wh_…${token.slice(-4)}`), 'the masked form is');
});

test('rotate-token: prints the contract line; the old URL works for the overlap, then answers 404; 0 ends it at once', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-rotate-'));
  const env = { ROUTEGATE_DB: path.join(dir, 'rg.db'), ROUTEGATE_MASTER_KEY: 'a'.repeat(64), ROUTEGATE_PUBLIC_URL: 'https://pay.example.com', NODE_ENV: 'development' };
  const svc = await startService(env);
  services.push(svc);
  const { id } = await svc.createAccount();
  const first = (await svc.app.store.accounts.get(id))!.webhookToken;

  const rotated = routegate(['webhooks', 'rotate-token', id], env);
  assert.equal(rotated.code, 0, rotated.err);
  const lines = rotated.out.trim().split('\n');
  assert.equal(lines.length, 1);
  const out = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(out), ['id', 'webhookToken', 'webhookUrls']);
  assert.equal(out.id, id);
  assert.match(out.webhookToken, /^wh_[A-Za-z0-9]{32}$/);
  assert.notEqual(out.webhookToken, first);
  assert.equal(out.webhookUrls.stripe, `https://pay.example.com/api/v1/webhooks/stripe/${out.webhookToken}`);
  assert.deepEqual(Object.keys(out.webhookUrls).sort(), ['asaas', 'mercadopago', 'pagarme', 'pagbank', 'stripe']);
  // spawnSync blocked this event-loop turn, in which the store had already read SQLite's data_version: a new turn.
  await new Promise((resolve) => setImmediate(resolve));
  const me = await svc.app.store.accounts.get(id);
  assert.equal(me!.webhookToken, out.webhookToken);

  assert.notEqual((await receive(svc, out.webhookToken)).status, 404, 'the new URL works');
  assert.notEqual((await receive(svc, first)).status, 404, 'the old URL works during the overlap');
  const realNow = clock.now;
  clock.now = () => realNow() + 24 * 3_600_000 + 60_000;
  try {
    assert.equal((await receive(svc, first)).status, 404, 'the old URL answers 404 once the 24 hours are over');
    assert.notEqual((await receive(svc, out.webhookToken)).status, 404);
  } finally {
    clock.now = realNow;
  }

  const again = routegate(['webhooks', 'rotate-token', id, '--keep-old-hours', '2'], env);
  assert.equal(again.code, 0, again.err);
  const second = JSON.parse(again.out).webhookToken;
  assert.notEqual((await receive(svc, out.webhookToken)).status, 404);
  const leaked = routegate(['webhooks', 'rotate-token', id, '--keep-old-hours', '0'], env);
  assert.equal(leaked.code, 0, leaked.err);
  const third = JSON.parse(leaked.out).webhookToken;
  assert.equal((await receive(svc, second)).status, 404, 'with 0 the replaced URL answers 404 at once');
  assert.equal((await receive(svc, out.webhookToken)).status, 404, 'and so does every earlier one still overlapping');
  assert.notEqual((await receive(svc, third)).status, 404);

  assert.equal(routegate(['webhooks', 'rotate-token', id, '--keep-old-hours', 'soon'], env).code, 2);
  const missing = routegate(['webhooks', 'rotate-token', '00000000-0000-4000-8000-000000000000'], env);
  assert.equal(missing.code, 1);
});

test('the operator dashboard rotates the token too, showing the new URLs once', async () => {
  const admin = { email: 'ops@example.com', password: 'operator password 1' };
  const svc = await startService({ ROUTEGATE_ADMIN_EMAIL: admin.email, ROUTEGATE_ADMIN_PASSWORD: admin.password });
  services.push(svc);
  const { id } = await svc.createAccount('Loja Giro', 'giro@example.com');
  const first = (await svc.app.store.accounts.get(id))!.webhookToken;
  const operator = new DashboardClient(svc.url);
  await operator.login(admin.email, admin.password);
  await operator.get('/dashboard/accounts');
  const res = await operator.post(`/dashboard/accounts/${id}/webhook-token`, { keepOldHours: '0' });
  assert.equal(res.status, 200, res.text);
  const now = (await svc.app.store.accounts.get(id))!.webhookToken;
  assert.notEqual(now, first);
  assert.ok(res.text.includes(`https://pay.example.com/api/v1/webhooks/stripe/${now}`));
  assert.equal((await receive(svc, first)).status, 404);
  assert.equal((await operator.post(`/dashboard/accounts/${id}/webhook-token`, { keepOldHours: '-1' })).status, 400);
});

test('accounts passthrough ID on|off: the operator\'s switch, printed as {"id","compatPassthrough"}', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-passthrough-'));
  const env = { ROUTEGATE_DB: path.join(dir, 'rg.db'), ROUTEGATE_MASTER_KEY: 'a'.repeat(64), NODE_ENV: 'development' };
  const svc = await startService(env);
  services.push(svc);
  const { id } = await svc.createAccount();
  assert.equal((await svc.app.store.accounts.get(id))!.compatPassthrough, false, 'off by default');
  const on = routegate(['accounts', 'passthrough', id, 'on'], env);
  assert.equal(on.code, 0, on.err);
  assert.deepEqual(JSON.parse(on.out), { id, compatPassthrough: true });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal((await svc.app.store.accounts.get(id))!.compatPassthrough, true);
  const off = routegate(['accounts', 'passthrough', id, 'off'], env);
  assert.deepEqual(JSON.parse(off.out), { id, compatPassthrough: false });
  assert.equal(routegate(['accounts', 'passthrough', id, 'maybe'], env).code, 2);
  assert.equal(routegate(['accounts', 'passthrough', '00000000-0000-4000-8000-000000000000', 'on'], env).code, 1);
});
