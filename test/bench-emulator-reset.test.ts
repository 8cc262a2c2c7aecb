import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulators } from '../src/sandbox/emulators';
import { loadMappings } from '../src/mapping/loader';
import { SANDBOX_CREDENTIALS } from '../src/sandbox/index';
import { today } from '../src/gateways/common';
import { resetEmulator } from '../bench/emulator-reset';

const CHARGE = {
  gateway: 'pagarme', paymentMethod: 'credit_card', amount: 1999, currency: 'BRL', description: 'Bench order',
  customer: { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909' },
  creditCard: { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 },
};

test("the benches' reset empties the emulators of the orders they were sent, and a failed reset stops the bench", async (t) => {
  const emulators = await startEmulators();
  t.after(() => emulators.close());
  const headers = {
    'content-type': 'application/json',
    authorization: `Basic ${Buffer.from(`${SANDBOX_CREDENTIALS.pagarme.secretKey}:`).toString('base64')}`,
  };
  const native = await loadMappings().get('pagarme')!.evaluate('charge.request', { charge: CHARGE, chargeId: 'chg_reset', today: today() });
  const created = await fetch(`${emulators.url}/pagarme/core/v5/orders`, { method: 'POST', headers, body: JSON.stringify(native) });
  assert.equal(created.status, 200);
  const { id } = await created.json() as { id: string };
  const read = () => fetch(`${emulators.url}/pagarme/core/v5/orders/${id}`, { headers }).then((r) => r.status);
  assert.equal(await read(), 200);

  await resetEmulator(emulators.url);
  assert.equal(await read(), 404);

  await assert.rejects(resetEmulator(`${emulators.url}/no-such-base`), /resetting the emulators failed: 404/);
});
