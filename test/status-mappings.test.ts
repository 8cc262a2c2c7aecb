import { pagbankAmountUnit } from '../src/gateways/pagbank/wire';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadMappings } from '../src/mapping/loader';
import type { GatewayId } from '../src/gateways/registry-ids';
import { SPEC_ROWS } from './helpers/spec-statuses';

// Every SPEC.md status row driven through the gateway's real charge.response mapping (not only its
// status.json), from a minimal body of that gateway's shape; plus the pre-authorization statuses DESIGN.md
// adds, which must come back approved and not captured.

const mappings = loadMappings();
const PAID = new Set(['paid', 'succeeded', 'CONFIRMED', 'RECEIVED', 'REFUNDED', 'approved', 'PAID', 'refunded']);

const BODY: Record<GatewayId, (status: string) => unknown> = {
  stripe: (s) => ({
    id: 'pi_1', object: 'payment_intent', status: s, amount: 1000, amount_received: s === 'succeeded' ? 1000 : 0, currency: 'brl',
    capture_method: s === 'requires_capture' ? 'manual' : 'automatic', payment_method_types: ['card'], metadata: { rg_payment_method: 'credit_card' }, latest_charge: null,
  }),
  pagarme: (s) => ({
    id: 'or_1', status: s,
    charges: [{ id: 'ch_1', status: s === 'authorized_pending_capture' ? 'pending' : s, amount: 1000, paid_amount: 0, currency: 'BRL', payment_method: 'credit_card',
      last_transaction: { id: 'tran_1', status: s === 'authorized_pending_capture' ? s : 'captured' } }],
  }),
  asaas: (s) => ({ object: 'payment', id: 'pay_1', status: s, value: 10, billingType: 'CREDIT_CARD', ...(PAID.has(s) ? { confirmedDate: '2026-11-22' } : {}) }),
  mercadopago: (s) => ({
    id: 1, status: s, status_detail: '', transaction_amount: 10, transaction_amount_refunded: 0, currency_id: 'BRL',
    payment_method_id: 'visa', payment_type_id: 'credit_card', captured: s !== 'authorized',
  }),
  pagbank: (s) => ({
    id: 'ORDE_1',
    charges: [{ id: 'CHAR_1', status: s, amount: { value: 10, currency: 'BRL', summary: { total: 10, paid: PAID.has(s) ? 10 : 0, refunded: 0 } }, payment_method: { type: 'CREDIT_CARD' } }],
  }),
};

const PRE_AUTH: Record<GatewayId, string> = {
  stripe: 'requires_capture', pagarme: 'authorized_pending_capture', asaas: 'AUTHORIZED', mercadopago: 'authorized', pagbank: 'AUTHORIZED',
};

const evaluate = (gateway: GatewayId, status: string) =>
  mappings.get(gateway)!.evaluate<{ status: string; captured?: boolean }>('charge.response', { response: BODY[gateway](status), extra: { paymentMethod: 'credit_card' } },
    gateway === 'pagbank' ? { amountUnit: pagbankAmountUnit() } : {}); // the adapter binds PagBank's unit

for (const gateway of Object.keys(SPEC_ROWS) as GatewayId[]) {
  test(`${gateway}: every SPEC.md native status comes out of charge.response as its normalized status`, async () => {
    for (const [native, normalized] of Object.entries(SPEC_ROWS[gateway])) {
      assert.equal((await evaluate(gateway, native)).status, normalized, `${gateway} ${native}`);
    }
  });

  test(`${gateway}: a pre-authorization (${PRE_AUTH[gateway]}) is approved and not captured`, async () => {
    const result = await evaluate(gateway, PRE_AUTH[gateway]);
    assert.equal(result.status, 'approved');
    assert.equal(result.captured, false);
  });
}
