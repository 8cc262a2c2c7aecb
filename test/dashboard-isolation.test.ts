import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, eventually, CARD, CUSTOMER, type E2E } from './helpers/e2e';
import { startReceiver } from './helpers/webhook-receiver';
import { DashboardClient } from './helpers/dashboard-client';
import { createAccountWithOwner } from '../src/accounts/onboarding';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/demo-account';
import { demoSettings } from '../src/sandbox/demo-account';
import { defaultSettings } from '../src/store/accounts';

// An account owner never sees or touches another account's data through the dashboard: charges, credentials, key,
// events and coproducers.

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
  await app.vault.save(id, gateway, SANDBOX_CREDENTIALS[gateway]);
  await app.store.accounts.saveSettings(id, { ...(await app.store.accounts.settings(id)), primaryGateway: gateway });
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
  const accountB = (await e2e.sandbox.app.store.accounts.get(b.id))!;
  const keyB = (await e2e.sandbox.app.store.apiKeys.live(b.id))!.hint;
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
  assert.ok(!(await e2e.sandbox.app.vault.has(a.id, gateway)));
});

test("an owner cannot list, open or redeliver another account's event, nor see, change or delete its coproducers", async (t) => {
  const a = await ownerWithCharge('c@isolation.example.com');
  const b = await ownerWithCharge('d@isolation.example.com');
  const app = e2e.sandbox.app;
  // B forwards to a local server; its event comes from a pix paid at the emulator, notified to B's receiver URL.
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  await app.store.accounts.saveSettings(b.id, { ...(await app.store.accounts.settings(b.id)), webhookForwardUrl: receiver.url });
  await e2e.control.registerWebhook(gateway, { url: `${e2e.sandbox.url}/api/v1/webhooks/${gateway}/${(await app.store.accounts.get(b.id))!.webhookToken}` });
  let event: { id: string; chargeId: string };
  try {
    const pix = await e2e.call('POST', '/api/v1/charges', { key: b.apiKey, body: { paymentMethod: 'pix', amount: 1500, customer: CUSTOMER, pix: { expiresInSeconds: 3600 } } });
    assert.equal(pix.status, 201, pix.text);
    await e2e.control.pay(gateway, pix.body.data.externalId);
    event = await eventually(async () => (await e2e.call('GET', '/api/v1/events', { key: b.apiKey })).body.data.find((e: any) => e.chargeId === pix.body.data.id));
    await receiver.until((hits) => hits.some((h) => h.body?.id === event.id));
  } finally {
    await e2e.control.clearWebhooks(gateway);
  }
  // Counted for this event only: the gateway may notify another event of the same charge meanwhile.
  const forwardsOf = () => receiver.hits.filter((h) => h.body?.id === event.id).length;
  const forwards = forwardsOf();

  assert.match((await b.client.get('/dashboard/events')).text, new RegExp(event.id), "B's events page lists it");
  assert.equal((await b.client.get(`/dashboard/events/${event.id}`)).status, 200);
  const listA = await a.client.get('/dashboard/events');
  assert.equal(listA.status, 200);
  assert.ok(!listA.text.includes(event.id), "B's event is not in A's list");
  const open = await a.client.get(`/dashboard/events/${event.id}`);
  assert.equal(open.status, 404);
  assert.ok(!open.text.includes(event.chargeId), "nothing of B's event is shown");
  await a.client.get('/dashboard/events');
  assert.equal((await a.client.post(`/dashboard/events/${event.id}/redeliver`)).status, 404);
  const stillB = (await e2e.call('GET', `/api/v1/events/${event.id}`, { key: b.apiKey })).body.data;
  assert.equal(stillB.deliveries.length, 1, 'no new delivery of B\'s event');
  assert.equal(forwardsOf(), forwards, "nothing was sent to B's backend");

  const cop = await e2e.call('POST', '/api/v1/coproducers', { key: b.apiKey, body: { email: 'socia@isolation.example.com', name: 'Sócia de B' } });
  assert.equal(cop.status, 201, cop.text);
  const copId = cop.body.data.id as string;
  assert.match((await b.client.get('/dashboard/coproducers')).text, /socia@isolation\.example\.com/);
  const copsA = await a.client.get('/dashboard/coproducers');
  assert.ok(!copsA.text.includes('socia@isolation.example.com'), "B's coproducer is not in A's list");
  assert.equal((await a.client.get(`/dashboard/coproducers/${copId}`)).status, 404);
  await a.client.get('/dashboard/coproducers');
  assert.equal((await a.client.post(`/dashboard/coproducers/${copId}`, { email: 'taken@isolation.example.com', name: 'Tomada' })).status, 404);
  assert.equal((await a.client.post(`/dashboard/coproducers/${copId}/recipients/${gateway}`, { [`recipients.${gateway}`]: 'rp_AAAAAAAAAAAAAAAA' })).status, 404);
  assert.equal((await a.client.post(`/dashboard/coproducers/${copId}/delete`)).status, 404);
  const after = await e2e.call('GET', `/api/v1/coproducers/${copId}`, { key: b.apiKey });
  assert.equal(after.status, 200, "B's coproducer is still there");
  assert.deepEqual([after.body.data.email, after.body.data.name, after.body.data.recipients], ['socia@isolation.example.com', 'Sócia de B', {}], 'and unchanged');
});
