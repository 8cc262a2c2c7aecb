import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { MAPPINGS_DIR, ROOT } from '../src/lib/paths';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { SPEC_DEVIATIONS, SPEC_ROWS, SPEC_TABLE_AS_WRITTEN } from './helpers/spec-statuses';

// Extra native statuses (pre-authorizations and the like) are allowed but must map to a normalized status.
const NORMALIZED = new Set(['approved', 'pending', 'processing', 'declined', 'cancelled', 'refunded', 'failed', 'disputed', 'charged_back']);

test('every deviation from SPEC.md\'s status table is from a row SPEC.md has, and is documented in docs/charges.md', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'charges.md'), 'utf8');
  for (const [gateway, rows] of Object.entries(SPEC_DEVIATIONS)) {
    for (const [native, deviation] of Object.entries(rows)) {
      assert.equal(SPEC_TABLE_AS_WRITTEN[gateway]?.[native], deviation.spec, `${gateway} ${native}: SPEC.md says ${deviation.spec}`);
      assert.notEqual(deviation.routegate, deviation.spec);
      assert.ok(doc.includes(`\`${native}\``) && doc.includes(`\`${deviation.routegate}\``), `docs/charges.md names ${gateway}'s ${native} -> ${deviation.routegate}`);
    }
  }
});

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
