import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyNotificationCode, legacyOrigin } from '../src/gateways/pagbank/legacy-notifications';

// PagBank's legacy notifications (docs/webhooks.md, "PagBank chargebacks"): which bodies are one, and where they are
// read back. The read itself runs end to end against the emulator in test/disputes.test.ts.

const req = (body: unknown) => ({ rawBody: Buffer.alloc(0), body, headers: {}, query: {} });

test('a legacy notification is notificationType=transaction with a plain code; anything else is not one', () => {
  assert.equal(legacyNotificationCode(req({ notificationCode: '766B9C-AD4B044B04DA-77742F5FA653-E1AB24', notificationType: 'transaction' })), '766B9C-AD4B044B04DA-77742F5FA653-E1AB24');
  assert.equal(legacyNotificationCode(req({ notificationCode: '766B9C', notificationType: 'preApproval' })), undefined);
  assert.equal(legacyNotificationCode(req({ notificationCode: '../orders/ORDE_1', notificationType: 'transaction' })), undefined, 'the code goes into a path');
  assert.equal(legacyNotificationCode(req({ id: 'ORDE_1', charges: [] })), undefined);
});

test('the legacy API is read at PagBank\'s own hosts, or at the configured origin (the emulators)', () => {
  assert.equal(legacyOrigin('https://api.pagseguro.com'), 'https://ws.pagseguro.uol.com.br');
  assert.equal(legacyOrigin('https://sandbox.api.pagseguro.com/'), 'https://ws.sandbox.pagseguro.uol.com.br');
  assert.equal(legacyOrigin('http://127.0.0.1:4010/pagbank/'), 'http://127.0.0.1:4010/pagbank');
});
