import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CARD, CUSTOMER, type E2E } from './helpers/e2e';
import { DashboardClient } from './helpers/dashboard-client';
import { createAccountWithOwner } from '../src/accounts/onboarding';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/demo-account';
import { demoSettings } from '../src/sandbox/demo-account';
import { defaultSettings } from '../src/store/accounts';

// An account owner never sees or touches another account's data through the dashboard.

const PASSWORD = 'isolation password';
let e2e: E2E;
before(async () => {
  e2e = await startE2E();
});
after(() => e2e.close());

const gateway = demoSettings(defaultSettings()).primaryGateway!;

async function ownerWithCharge(email: string) {
  const app = e2e.sandbox.app;
  const { id, apiKey } = await createAccountWithOwner(app.store, app.logins, { name: `Loja ${email}`, email, password: PASSWORD });
  app.vault.save(id, gateway, SANDBOX_CREDENTIALS[gateway]);
  app.store.accounts.saveSettings(id, { ...app.store.accounts.settings(id), primaryGateway: gateway });
  const charge = await e2e.call('POST', '/api/v1/charges', { key: apiKey, body: { paymentMethod: 'credit_card', amount: 5000, capture: false, creditCard: CARD, customer: CUSTOMER, description: `of ${email}` } });
  assert.equal(charge.status, 201, charge.text);
  const client = new DashboardClient(e2e.sandbox.url);
  assert.equal((await client.login(email, PASSWORD)).location, '/dashboard');
  return { id, apiKey, chargeId: charge.body.data.id as string, client };
}

test("an owner cannot list, open, capture, cancel or refund another account's charge, nor see its credentials or key", async () => {
  const a = await ownerWithCharge('a@isolation.example.com');
  const b = await ownerWithCharge('b@isolation.example.com');

  const listA = await a.client.get('/dashboard/charges');
  assert.match(listA.text, new RegExp(a.chargeId));
  assert.ok(!listA.text.includes(b.chargeId), "B's charge is not in A's list");
  assert.equal((await a.client.get(`/dashboard/charges/${a.chargeId}`)).status, 200);

  const open = await a.client.get(`/dashboard/charges/${b.chargeId}`);
  assert.equal(open.status, 404);
  assert.ok(!open.text.includes('of b@isolation'), "nothing of B's charge is shown");
  for (const action of ['capture', 'cancel', 'refund']) {
    await a.client.get(`/dashboard/charges/${a.chargeId}`);
    const res = await a.client.post(`/dashboard/charges/${b.chargeId}/${action}`);
    assert.equal(res.status, 404, action);
  }
  const stillB = await e2e.call('GET', `/api/v1/charges/${b.chargeId}`, { key: b.apiKey });
  assert.equal(stillB.body.data.status, 'approved');
  assert.equal(stillB.body.data.captured, false, "B's pre-authorization is untouched");
  assert.equal(stillB.body.data.attempts.length, 1, 'no operation reached the gateway');

  // Pages show only the signed-in account: webhook token, key hint, masked credentials.
  const accountB = e2e.sandbox.app.store.accounts.get(b.id)!;
  const keyB = e2e.sandbox.app.store.apiKeys.live(b.id)!.hint;
  for (const path of ['/dashboard/overview', '/dashboard/api-key', '/dashboard/credentials', '/dashboard/settings', '/dashboard/charges']) {
    const page = await a.client.get(path);
    assert.equal(page.status, 200, path);
    assert.ok(!page.text.includes(accountB.webhookToken), `${path} shows B's webhook token`);
    assert.ok(!page.text.includes(keyB), `${path} shows B's key hint`);
    assert.ok(!page.text.includes(accountB.name), `${path} names B`);
  }
  // Deleting "B's" credentials from A's session deletes A's (the account comes from the session, never the URL).
  await a.client.get('/dashboard/credentials');
  assert.equal((await a.client.post(`/dashboard/credentials/${gateway}/delete`)).status, 303);
  assert.ok(e2e.sandbox.app.vault.has(b.id, gateway), "B's credentials are still there");
  assert.ok(!e2e.sandbox.app.vault.has(a.id, gateway));
});
