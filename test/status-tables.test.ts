import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MAPPINGS_DIR } from '../src/lib/paths';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';

// SPEC.md "States and transitions", copied as data: every row must be in the gateway's status.json exactly.
// Extra native statuses (pre-authorizations and the like) are allowed but must map to a normalized status.
const SPEC_ROWS: Record<string, Record<string, string>> = {
  pagarme: {
    paid: 'approved', pending: 'pending', waiting_payment: 'pending', pending_payment: 'pending', processing: 'processing',
    refused: 'declined', canceled: 'cancelled', refunded: 'refunded', chargedback: 'refunded', failed: 'failed', with_error: 'failed',
  },
  asaas: { PENDING: 'pending', CONFIRMED: 'approved', RECEIVED: 'approved', REFUSED: 'declined', CANCELLED: 'cancelled', REFUNDED: 'refunded' },
  stripe: { succeeded: 'approved', processing: 'processing', requires_payment_method: 'pending', requires_action: 'pending', canceled: 'cancelled' },
  mercadopago: {
    approved: 'approved', in_process: 'processing', pending: 'pending', rejected: 'declined', cancelled: 'cancelled', refunded: 'refunded',
  },
  pagbank: { PAID: 'approved', WAITING: 'pending', IN_ANALYSIS: 'processing', DECLINED: 'declined', CANCELLED: 'cancelled', REFUNDED: 'refunded' },
};
const NORMALIZED = new Set(['approved', 'pending', 'processing', 'declined', 'cancelled', 'refunded', 'failed']);

for (const gateway of GATEWAY_IDS) {
  test(`${gateway} status.json holds every SPEC.md row and only normalized statuses`, () => {
    const table = JSON.parse(fs.readFileSync(path.join(MAPPINGS_DIR, gateway, 'status.json'), 'utf8')) as Record<string, string>;
    for (const [native, normalized] of Object.entries(SPEC_ROWS[gateway])) {
      assert.equal(table[native], normalized, `${gateway}: ${native} must map to ${normalized}`);
    }
    for (const [native, normalized] of Object.entries(table)) {
      assert.ok(NORMALIZED.has(normalized), `${gateway}: ${native} maps to unknown status ${normalized}`);
    }
  });
}
