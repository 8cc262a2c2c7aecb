import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DAY, KEYED_CHARGE, keyedChargeService } from './helpers/keyed-charges';

// An Idempotency-Key is claimed first and read only when the claim finds it taken (src/http/idempotency.ts).

test('a key is claimed in one write; taken, it is read: replayed, refused as reused, or still in progress', async (t) => {
  const { store, accountId, create } = await keyedChargeService(t);

  const first = await create('k-1');
  assert.equal(first.status, 201);
  const replay = await create('k-1');
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assert.deepEqual(replay.body, first.body);
  const reused = await create('k-1', { ...KEYED_CHARGE, amount: 1600 });
  assert.equal(reused.status, 409);
  assert.equal(reused.body.error.code, 'IDEMPOTENCY_CONFLICT');
  assert.match(reused.body.error.message, /already used with a different request/);

  // Claimed by a request still running (a fresh claim, its answer not kept yet), with what this request hashes to.
  const running = await store.idempotency.get(accountId, 'k-1');
  await store.writeOne((r) => r.idempotency.claim(accountId, 'k-2', running!.requestHash, Date.now(), DAY));
  const busy = await create('k-2');
  assert.equal(busy.status, 409);
  assert.match(busy.body.error.message, /still being processed/);
  assert.equal((await store.idempotency.get(accountId, 'k-2'))?.statusCode, null, 'the running request\'s claim is left as it was');
});

test('an expired key taken over by a new request no longer names the charge of the old one', async (t) => {
  const { store, accountId } = await keyedChargeService(t);
  await store.writeOne((r) => r.idempotency.claim(accountId, 'old', 'hash-1', Date.now() - 2 * DAY, DAY));
  await store.writeOne((r) => r.idempotency.linkCharge(accountId, 'old', 'chg_from_yesterday'));
  assert.equal(await store.writeOne((r) => r.idempotency.claim(accountId, 'old', 'hash-2', Date.now(), DAY)), true);
  const entry = await store.idempotency.get(accountId, 'old');
  assert.equal(entry?.requestHash, 'hash-2');
  // Had it kept the old charge, a retry of a new request that died before its own charge would answer yesterday's.
  assert.equal(entry?.chargeId, null);
});
