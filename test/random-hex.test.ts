import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomHex } from '../src/lib/random-hex';
import { newChargeId } from '../src/charges/orchestrator';

test('randomHex hands out each pooled byte once, across refills of its 4 KB block, as lowercase hex', () => {
  const seen = new Set<string>();
  // 3,000 ids of 10 bytes cross the block boundary seven times; a byte handed out twice would repeat an id.
  for (let i = 0; i < 3000; i++) {
    const hex = randomHex(10);
    assert.match(hex, /^[0-9a-f]{20}$/);
    seen.add(hex);
  }
  assert.equal(seen.size, 3000);
  assert.match(randomHex(5000), /^[0-9a-f]{10000}$/, 'more than a block at once');
  assert.equal(randomHex(0), '');
});

test('charge ids: chg_, the creation millisecond in 12 hex digits, then 20 random hex digits', () => {
  const before = Date.now();
  const id = newChargeId();
  assert.match(id, /^chg_[0-9a-f]{32}$/);
  const ms = parseInt(id.slice(4, 16), 16);
  assert.ok(ms >= before && ms <= Date.now());
  assert.notEqual(newChargeId().slice(16), newChargeId().slice(16));
});
