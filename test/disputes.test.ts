import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startE2E, CUSTOMER, type E2E } from './helpers/e2e';
import { DashboardClient } from './helpers/dashboard-client';
import { createAccountWithOwner } from '../src/accounts/onboarding';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/demo-account';
import { startReceiver, type Hit, type Receiver } from './helpers/webhook-receiver';
import type { GatewayId } from '../src/gateways/registry-ids';

// Issue 42 item 4, "Disputes are not refunds", end to end over real HTTP: a card charge paid at each gateway's
// emulator, a chargeback opened there through the control API (POST /__control/dispute), the gateway's real signed
// notification sent by the emulator to RouteGate's receiver, the merchant's backend getting dispute.opened with the
// disputed amount, the charge showing status `disputed` and its dispute with refundedAmount untouched; then the
// dispute settled (POST /__control/dispute/close) won or lost, each with its own notification.

const APRO = { number: '4235647728025682', holderName: 'APRO', expMonth: 11, expYear: 2030, cvv: '123' };
const CARD = { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123' };
const AMOUNT = 1999;

let e2e: E2E;
let backend: Receiver;
let key: string;

before(async () => {
  e2e = await startE2E({}, undefined, { webhooks: true });
  backend = await startReceiver();
  key = e2e.sandbox.account.apiKey;
  const patched = await e2e.call('PATCH', '/api/v1/clients/settings', { key, body: { webhookForwardUrl: backend.url } });
  assert.equal(patched.status, 200, patched.text);
});
after(async () => {
  await backend.close();
  await e2e.close();
});

async function paidCharge(gateway: GatewayId): Promise<{ id: string; externalId: string; amount: number }> {
  let body: Record<string, unknown> = { gateway, paymentMethod: 'credit_card', amount: AMOUNT, customer: CUSTOMER, creditCard: gateway === 'mercadopago' ? APRO : CARD };
  const customer = await e2e.call('POST', '/api/v1/customers', { key, body: { ...CUSTOMER, gateway } });
  if (customer.status === 201) body = { ...body, customerId: customer.body.data.externalId };
  const created = await e2e.call('POST', '/api/v1/charges', { key, body });
  assert.equal(created.status, 201, `${gateway}: ${created.text}`);
  assert.equal(created.body.data.status, 'approved', `${gateway}: ${created.text}`);
  assert.equal(created.body.data.gateway, gateway);
  return created.body.data;
}

async function stored(chargeId: string, refresh = false) {
  const res = await e2e.call('GET', `/api/v1/charges/${chargeId}${refresh ? '?refresh=true' : ''}`, { key });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** The forwarded event of `type` about the charge, once the backend has it. */
async function forwarded(chargeId: string, type: string): Promise<Hit> {
  const hits = await backend.until((all) => all.some((h) => h.body?.type === type && h.body?.data?.chargeId === chargeId));
  return hits.find((h) => h.body?.type === type && h.body?.data?.chargeId === chargeId)!;
}

const forwardedTypes = (chargeId: string) => backend.hits.filter((h) => h.body?.data?.chargeId === chargeId).map((h) => h.body.type as string);

/** Gateways whose emulator and RouteGate carry a dispute from opening to its outcome (docs/charges.md, "Disputes"). */
const SETTLED: GatewayId[] = ['stripe', 'mercadopago', 'asaas', 'pagbank'];

describe('disputes over real HTTP', { timeout: 120_000 }, () => {
  for (const gateway of [...SETTLED, 'pagarme'] as GatewayId[]) {
    test(`${gateway}: a chargeback opened at the gateway is a dispute, never a refund`, async () => {
      const charge = await paidCharge(gateway);
      // Stripe's dispute carries an amount: part of the charge is disputed there; the others dispute the whole payment.
      const disputed = gateway === 'stripe' ? 1500 : AMOUNT;
      await e2e.control.dispute(gateway, charge.externalId, gateway === 'stripe' ? disputed : undefined);
      const hit = await forwarded(charge.id, 'dispute.opened');
      assert.equal(hit.body.gateway, gateway);
      assert.equal(hit.body.verified, true);
      assert.equal(hit.body.data.dispute.status, 'open');
      assert.equal(hit.body.data.dispute.amount, disputed);
      assert.equal(hit.body.data.refundedAmount, 0);
      const listed = await e2e.call('GET', `/api/v1/events/${hit.body.id}`, { key });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.data.data.dispute, hit.body.data.dispute, 'the Events API shows the dispute as forwarded');
      const row = await stored(charge.id);
      assert.equal(row.status, 'disputed');
      assert.equal(row.refundedAmount, 0, 'a chargeback is never a refund');
      assert.equal(row.paidAmount, AMOUNT);
      assert.deepEqual({ status: row.dispute.status, amount: row.dispute.amount }, { status: 'open', amount: disputed });
      assert.equal(typeof row.dispute.openedAt, 'string');
      assert.ok(!forwardedTypes(charge.id).includes('payment.refunded'), `${gateway}: no payment.refunded for a chargeback`);
      // The gateway's own answer, read again, says the same.
      const refreshed = await stored(charge.id, true);
      assert.equal(refreshed.status, 'disputed');
      assert.equal(refreshed.refundedAmount, 0);
      assert.equal(refreshed.dispute.status, 'open');
      // A disputed charge is not refundable through RouteGate.
      const refund = await e2e.call('POST', `/api/v1/charges/${charge.id}/refunds`, { key, body: {} });
      assert.equal(refund.status, 400, refund.text);
      assert.match(refund.body.error.message, /cannot be refunded \(status disputed\)/);
    });
  }

  for (const gateway of SETTLED) {
    test(`${gateway}: a dispute won takes the charge back to approved (dispute.won); refundedAmount never moves`, async () => {
      const charge = await paidCharge(gateway);
      await e2e.control.dispute(gateway, charge.externalId);
      await forwarded(charge.id, 'dispute.opened');
      await e2e.control.closeDispute(gateway, charge.externalId, 'won');
      const hit = await forwarded(charge.id, 'dispute.won');
      assert.equal(hit.body.data.dispute.status, 'won');
      const row = await stored(charge.id);
      assert.equal(row.status, 'approved');
      assert.equal(row.dispute.status, 'won');
      assert.equal(row.refundedAmount, 0);
      const refreshed = await stored(charge.id, true);
      assert.equal(refreshed.status, 'approved', 'the gateway\'s answer agrees');
      assert.equal(refreshed.dispute.status, 'won');
    });

    test(`${gateway}: a dispute lost leaves the charge charged_back (dispute.lost); a partial refund before it keeps both facts`, async () => {
      const charge = await paidCharge(gateway);
      const refund = await e2e.call('POST', `/api/v1/charges/${charge.id}/refunds`, { key, body: { amount: 500 } });
      assert.equal(refund.status, 201, refund.text);
      await e2e.control.dispute(gateway, charge.externalId, gateway === 'stripe' ? AMOUNT - 500 : undefined);
      await forwarded(charge.id, 'dispute.opened');
      assert.equal((await stored(charge.id)).refundedAmount, 500);
      await e2e.control.closeDispute(gateway, charge.externalId, 'lost');
      const hit = await forwarded(charge.id, 'dispute.lost');
      assert.equal(hit.body.data.dispute.status, 'lost');
      const row = await stored(charge.id);
      assert.equal(row.status, 'charged_back');
      assert.equal(row.dispute.status, 'lost');
      assert.equal(row.refundedAmount, 500, 'only the refund: the chargeback is not added to it');
      const refreshed = await stored(charge.id, true);
      assert.equal(refreshed.status, 'charged_back');
      assert.equal(refreshed.refundedAmount, 500);
      assert.ok(!forwardedTypes(charge.id).includes('dispute.won'));
    });
  }

  test('the control API refuses a chargeback on an unpaid charge with the gateway\'s native error', async () => {
    const pix = await e2e.call('POST', '/api/v1/charges', { key, body: { gateway: 'stripe', paymentMethod: 'pix', amount: AMOUNT, customer: CUSTOMER, pix: { expiresInSeconds: 3600 } } });
    assert.equal(pix.status, 201, pix.text);
    const res = await fetch(`${e2e.sandbox.emulators.url}/__control/dispute`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ gateway: 'stripe', id: pix.body.data.externalId }),
    });
    assert.equal(res.status, 400);
    const body = await res.json() as { error: { type: string; message: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    const mp = await fetch(`${e2e.sandbox.emulators.url}/__control/dispute/close`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ gateway: 'mercadopago', id: '1', outcome: 'won' }),
    });
    assert.equal(mp.status, 404, await mp.clone().text());
    assert.equal((await mp.json() as { error: string }).error, 'not_found');
  });

  test('an unverified dispute notification does not move the charge: what moves it is the gateway\'s own answer', async () => {
    const charge = await paidCharge('asaas');
    const token = (await e2e.sandbox.app.store.accounts.get(e2e.sandbox.account.id))!.webhookToken;
    // A forged PAYMENT_CHARGEBACK_REQUESTED without Asaas' access token: the gateway still shows the payment paid.
    const payment = { object: 'payment', id: charge.externalId, value: AMOUNT / 100, billingType: 'CREDIT_CARD', status: 'CHARGEBACK_REQUESTED',
      confirmedDate: '2030-01-01', externalReference: charge.id, chargeback: { status: 'REQUESTED', reason: 'FRAUD' } };
    const body = JSON.stringify({ id: `evt_forged_${Date.now()}`, event: 'PAYMENT_CHARGEBACK_REQUESTED', dateCreated: '2030-01-01 10:00:00', payment });
    const res = await e2e.call('POST', `/api/v1/webhooks/asaas/${token}`, { rawBody: body, headers: { 'content-type': 'application/json', 'asaas-access-token': 'not-the-token' } });
    assert.equal(res.status, 401, res.text);
    const unsigned = await e2e.call('POST', `/api/v1/webhooks/asaas/${token}`, { rawBody: body, headers: { 'content-type': 'application/json' } });
    assert.ok(unsigned.status < 500, unsigned.text);
    const row = await stored(charge.id);
    assert.equal(row.status, 'approved');
    assert.equal(row.dispute, undefined);
    assert.ok(!forwardedTypes(charge.id).some((t) => t.startsWith('dispute.')), 'nothing about a dispute was forwarded');
  });
});

describe('PagBank chargebacks: legacy notifications read back', { timeout: 60_000 }, () => {
  test('the notification is form-encoded and carries only a code; the Orders API still shows the charge PAID', async () => {
    const charge = await paidCharge('pagbank');
    await e2e.control.dispute('pagbank', charge.externalId);
    await forwarded(charge.id, 'dispute.opened');
    const sent = (await e2e.control.webhooks('pagbank')).filter((w) => w.resource === charge.externalId && w.event === 'transaction 9');
    assert.equal(sent.length, 1, 'the emulator sent one legacy notification for the opening');
    // RouteGate read the code back at the legacy API, with the account's credentials in the query string.
    const reads = (await e2e.control.requests('pagbank')).filter((r) => r.method === 'GET' && r.path.startsWith('/v3/transactions/notifications/'));
    const code = decodeURIComponent(/notifications\/([^?]+)/.exec(reads[reads.length - 1].path)![1]);
    assert.match(reads[reads.length - 1].path, /[?&]token=[^&]+/);
    assert.match(reads[reads.length - 1].path, /[?&]email=[^&]+/, 'the legacy API wants the e-mail beside the token');
    assert.match(code, /^[0-9A-F]{6}-[0-9A-F]{12}-[0-9A-F]{12}-[0-9A-F]{6}$/);
    const base = `${e2e.sandbox.emulators.url}/pagbank`;
    const token = SANDBOX_CREDENTIALS.pagbank.token;
    const read = await fetch(`${base}/v3/transactions/notifications/${code}?email=${encodeURIComponent('loja@example.com')}&token=${token}`);
    assert.equal(read.status, 200);
    const xml = await read.text();
    assert.match(xml, /<status>9<\/status>/, 'a card chargeback: Retenção temporária');
    assert.match(xml, new RegExp(`<reference>${charge.id}</reference>`));
    assert.match(xml, /<grossAmount>19\.99<\/grossAmount>/);
    assert.equal((await fetch(`${base}/v3/transactions/notifications/${code}`)).status, 401, 'the legacy API wants email and token');
    const modern = await fetch(`${base}/charges/${charge.externalId}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal((await modern.json() as { status: string }).status, 'PAID');
  });

  test('a forged legacy notification naming a code PagBank does not know changes nothing', async () => {
    const charge = await paidCharge('pagbank');
    const token = (await e2e.sandbox.app.store.accounts.get(e2e.sandbox.account.id))!.webhookToken;
    const res = await e2e.call('POST', `/api/v1/webhooks/pagbank/${token}`, {
      rawBody: 'notificationCode=000000-000000000000-000000000000-000000&notificationType=transaction',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.ignored, res.text);
    const row = await stored(charge.id);
    assert.equal(row.status, 'approved');
    assert.equal(row.dispute, undefined);
    assert.ok(!forwardedTypes(charge.id).some((t) => t.startsWith('dispute.')));
  });
});

test('the dashboard\'s charge page shows the dispute like the rest of the charge: status, amount in R$, reason, opening', { timeout: 60_000 }, async () => {
  const app = e2e.sandbox.app;
  const email = `owner-${Date.now()}@disputes.example.com`;
  const password = 'disputes dashboard password';
  const { id, apiKey } = await createAccountWithOwner(app.store, app.logins, { name: 'Loja Disputas', email, password });
  await app.vault.save(id, 'mercadopago', SANDBOX_CREDENTIALS.mercadopago);
  const created = await e2e.call('POST', '/api/v1/charges', { key: apiKey, body: { gateway: 'mercadopago', paymentMethod: 'credit_card', amount: AMOUNT, customer: CUSTOMER, creditCard: APRO } });
  assert.equal(created.status, 201, created.text);
  const charge = created.body.data;
  await e2e.control.dispute('mercadopago', charge.externalId);
  // The gateway's own answer, read with the account's credentials, opens the dispute on the charge (this account is
  // not the one the emulators' registered endpoints notify).
  const refreshed = await e2e.call('GET', `/api/v1/charges/${charge.id}?refresh=true`, { key: apiKey });
  assert.equal(refreshed.body.data.status, 'disputed', refreshed.text);
  const client = new DashboardClient(e2e.sandbox.url);
  assert.equal((await client.login(email, password)).location, '/dashboard');
  const page = await client.get(`/dashboard/charges/${charge.id}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /id="charge-status">disputed</);
  const dispute = /<dd id="charge-dispute">([\s\S]*?)<\/dd>/.exec(page.text)?.[1] ?? '';
  assert.match(dispute, /dispute-open">open</);
  assert.match(dispute, /R\$\s19,99/);
  assert.match(dispute, /in_process/);
  assert.match(dispute, /opened \d\d\/\d\d\/\d{4}/);
});
