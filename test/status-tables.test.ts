import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MAPPINGS_DIR } from '../src/lib/paths';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { SPEC_ROWS } from './helpers/spec-statuses';

// Extra native statuses (pre-authorizations and the like) are allowed but must map to a normalized status.
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
