import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disputePatch } from '../src/charges/disputes';
import { patchFromGateway } from '../src/charges/charge-writes';
import { patchFromEvent } from '../src/webhooks/charge-update';
import type { ChargeRecord } from '../src/store/charges';
import type { NormalizedChargeResult } from '../src/gateways/types';
import type { WebhookResult } from '../src/webhooks/event';
import { mismatchOf } from '../src/webhooks/event-checks';

// The dispute lifecycle on a charge (docs/charges.md, "Disputes") as the pure patches the store applies under the
// charge's lock: none -> open -> won | lost, never back, and never a refund. The end-to-end path is
// test/disputes.test.ts; these pin the transitions an emulator cannot easily produce (late, repeated, out of order).

const NOW = '2030-01-02T10:00:00.000Z';

function charge(over: Partial<ChargeRecord> = {}): ChargeRecord {
  return {
    id: 'chg_1', accountId: 'acc_1', gateway: 'stripe', primaryGateway: 'stripe', fallbackUsed: false, externalId: 'pi_1', paymentMethod: 'credit_card',
    status: 'approved', amount: 1999, paidAmount: 1999, refundedAmount: 0, currency: 'BRL', captured: true, description: null, customerId: null, refs: null,
    pixQrCode: null, pixCopyPaste: null, boletoUrl: null, boletoBarcode: null, declineCode: null, errorCode: null, errorMessage: null,
    createdAt: NOW, updatedAt: NOW, dispute: null, ...over,
  };
}

const open = (amount = 1999, priorStatus = 'approved') => ({ status: 'open' as const, amount, reason: 'fraudulent', openedAt: NOW, priorStatus });

test('a dispute opens on an approved charge: status disputed, the dispute with its amount, refundedAmount untouched', () => {
  const patch = disputePatch(charge({ refundedAmount: 500 }), { status: 'open', amount: 1499, reason: 'fraudulent', openedAt: NOW }, 'later');
  assert.deepEqual(patch, { status: 'disputed', dispute: open(1499) });
  assert.equal('refundedAmount' in patch, false);
});

test('without an amount the dispute is of what was paid; without an opening instant it opened now', () => {
  assert.deepEqual(disputePatch(charge({ paidAmount: 1500 }), { status: 'open' }, NOW).dispute, { ...open(1500), reason: null });
});

test('won takes the charge back to the status it had; lost leaves it charged_back; both keep the opening', () => {
  const disputed = charge({ status: 'disputed', dispute: open() });
  assert.deepEqual(disputePatch(disputed, { status: 'won' }, 'later'), { status: 'approved', dispute: { ...open(), status: 'won' } });
  assert.deepEqual(disputePatch(disputed, { status: 'lost' }, 'later'), { status: 'charged_back', dispute: { ...open(), status: 'lost' } });
});

test('a settled dispute is never reopened or changed by a late or repeated notification', () => {
  const lost = charge({ status: 'charged_back', dispute: { ...open(), status: 'lost' } });
  for (const status of ['open', 'won', 'lost'] as const) assert.deepEqual(disputePatch(lost, { status }, NOW), {}, status);
  const won = charge({ status: 'approved', dispute: { ...open(), status: 'won' } });
  assert.deepEqual(disputePatch(won, { status: 'open' }, NOW), {});
});

test('the same open dispute told again changes nothing but what the first telling lacked', () => {
  const disputed = charge({ status: 'disputed', dispute: { ...open(), reason: null } });
  assert.deepEqual(disputePatch(disputed, { status: 'open', amount: 5 }, NOW), {});
  assert.deepEqual(disputePatch(disputed, { status: 'open', reason: 'FRAUD' }, NOW), { dispute: { ...open(), reason: 'FRAUD' } });
});

test('an outcome RouteGate never saw open records the dispute opened then, already settled', () => {
  assert.deepEqual(disputePatch(charge(), { status: 'lost', amount: 1999 }, NOW), { status: 'charged_back', dispute: { ...open(), reason: null, status: 'lost' } });
  assert.deepEqual(disputePatch(charge(), { status: 'won' }, NOW), { dispute: { ...open(), reason: null, status: 'won' } });
});

const paymentEvent = (over: Partial<WebhookResult>): WebhookResult => ({ type: 'payment.approved', gatewayType: 'x', status: 'approved', ...over });

test('a payment event about a disputed charge brings its amounts and keeps the dispute\'s status', () => {
  const disputed = charge({ status: 'disputed', dispute: open() });
  assert.deepEqual(patchFromEvent(disputed, paymentEvent({})), {});
  assert.deepEqual(patchFromEvent(disputed, paymentEvent({ type: 'payment.refunded', status: 'approved', refundedAmount: 300 })), { refundedAmount: 300 });
  const lost = charge({ status: 'charged_back', dispute: { ...open(), status: 'lost' } });
  assert.deepEqual(patchFromEvent(lost, paymentEvent({ type: 'payment.refunded', status: 'refunded', refundedAmount: 1999 })), { refundedAmount: 1999 });
});

test('a dispute event moves only the status and the dispute, never the amounts it also carries', () => {
  const patch = patchFromEvent(charge(), { type: 'dispute.opened', gatewayType: 'x', refundedAmount: 1999, paidAmount: 1999, dispute: { status: 'open', amount: 1999 } }, NOW);
  assert.deepEqual(Object.keys(patch).sort(), ['dispute', 'status']);
  assert.deepEqual(patchFromEvent(charge(), { type: 'dispute.opened', gatewayType: 'x' }), {}, 'a dispute event without its dispute changes nothing');
});

const answer = (over: Partial<NormalizedChargeResult>): NormalizedChargeResult => ({
  externalId: 'pi_1', status: 'approved', amount: 1999, paidAmount: 1999, refundedAmount: 0, currency: 'BRL', ...over,
});

test('the gateway\'s answer: disputed opens, charged_back loses, a won dispute it names takes the charge back', () => {
  assert.equal(patchFromGateway(charge(), answer({ status: 'disputed', dispute: { amount: 1999, reason: 'in_process' } })).status, 'disputed');
  const disputed = charge({ status: 'disputed', dispute: open() });
  const lost = patchFromGateway(disputed, answer({ status: 'charged_back' }));
  assert.equal(lost.status, 'charged_back');
  assert.equal(lost.dispute?.status, 'lost');
  assert.equal(lost.refundedAmount, 0, 'the gateway\'s refunded figure, never the chargeback');
  const won = patchFromGateway(disputed, answer({ status: 'approved', dispute: { status: 'won' } }));
  assert.equal(won.status, 'approved');
  assert.equal(won.dispute?.status, 'won');
});

test('an answer that tells nothing of chargebacks leaves a disputed or charged-back charge as it is', () => {
  // A Stripe PaymentIntent stays succeeded through a dispute: its read is no news of the dispute's outcome.
  const disputed = charge({ status: 'disputed', dispute: open() });
  const patch = patchFromGateway(disputed, answer({ status: 'approved' }));
  assert.equal(patch.status, 'disputed');
  assert.equal(patch.dispute, undefined);
  const lost = charge({ status: 'charged_back', dispute: { ...open(), status: 'lost' } });
  assert.equal(patchFromGateway(lost, answer({ status: 'charged_back' })).status, 'charged_back');
  assert.equal(patchFromGateway(lost, answer({ status: 'disputed' })).status, 'charged_back', 'a settled dispute is not reopened by a stale read');
});

test('an outcome told only of an open dispute (settlesOpen) is a mismatch on a charge with none open, and applies to an open one', () => {
  const won: WebhookResult = { type: 'dispute.won', gatewayType: 'transaction 4', reference: 'chg_1', amount: 1999, dispute: { status: 'won', settlesOpen: true } };
  assert.match(mismatchOf(charge(), won) ?? '', /only of an open one/);
  assert.match(mismatchOf(charge({ status: 'approved', dispute: { ...open(), status: 'won' } }), won) ?? '', /no open dispute/);
  const disputed = charge({ status: 'disputed', dispute: open() });
  assert.equal(mismatchOf(disputed, won), undefined);
  assert.deepEqual(patchFromEvent(disputed, won, 'later'), { status: 'approved', dispute: { ...open(), status: 'won' } });
});

test('a dispute naming no amount of its own must be about a payment of the charge\'s amount', () => {
  const opened: WebhookResult = { type: 'dispute.opened', gatewayType: 'transaction 9', reference: 'chg_1', amount: 2999, dispute: { status: 'open' } };
  assert.match(mismatchOf(charge(), opened) ?? '', /amount 2999 is not the charge's amount 1999/);
  assert.equal(mismatchOf(charge(), { ...opened, amount: 1999 }), undefined);
  // A dispute with its own amount (part of the payment disputed) is checked against the charge's amount only as a ceiling.
  assert.equal(mismatchOf(charge(), { ...opened, amount: 5000, dispute: { status: 'open', amount: 1500 } }), undefined);
});
