import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toPlain } from '../src/mapping/compiled/plain';
import { assertEnginesAgree } from './helpers/engines';

// What a mapping answers is plain JSON, as JSON.parse(JSON.stringify(value)) would give it (src/mapping/compiled/plain.ts).

test('an own __proto__ key stays an own key of the copy, as a JSON round trip keeps it', () => {
  const fromGateway = JSON.parse('{"id": "or_1", "metadata": {"__proto__": {"polluted": "yes"}, "order": "42"}}');
  const plain = toPlain(fromGateway) as { metadata: Record<string, unknown> };
  assert.deepEqual(plain, JSON.parse(JSON.stringify(fromGateway)));
  assert.equal(Object.getPrototypeOf(plain.metadata), Object.prototype);
  assert.ok(Object.hasOwn(plain.metadata, '__proto__'));
  assert.equal((plain.metadata as { polluted?: string }).polluted, undefined);
  assert.equal(JSON.stringify(plain), '{"id":"or_1","metadata":{"__proto__":{"polluted":"yes"},"order":"42"}}');
  assert.equal(({} as { polluted?: string }).polluted, undefined);
});

test('both engines answer an input holding an own __proto__ key with that key', async () => {
  const input = { o: { a: 1, ...JSON.parse('{"__proto__": {"x": "own"}}') } };
  await assertEnginesAgree(['o', '{"copy": o}', '[o, o.a]'], [input]);
});
