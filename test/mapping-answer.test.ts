import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import jsonata from 'jsonata';
import { loadMappings, MappingSet } from '../src/mapping/loader';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { MAPPINGS_DIR } from '../src/lib/paths';
import { assertEnginesAgree } from './helpers/engines';

// A compiled mapping builds its answer as plain JSON where the expression constructs it (src/mapping/compiled/
// answer.ts) instead of copying it afterwards. Callers must still get exactly what JSON.parse(JSON.stringify(v))
// gives: a tree of its own (no object shared with the input, with a variable or with another place in the answer),
// with no sequences' extra properties, undefined fields, functions or non-finite numbers.

/** Every object and array in `value`, the path each was met at; `distinct`: each met once only. */
function objectsOf(value: unknown, distinct: boolean, at = '$', seen = new Map<object, string>()): Map<object, string> {
  if (value === null || typeof value !== 'object') return seen;
  if (seen.has(value)) {
    assert.ok(!distinct, `${at} is the same object as ${seen.get(value)}`);
    return seen;
  }
  seen.set(value, at);
  for (const key of Object.keys(value)) objectsOf((value as Record<string, unknown>)[key], distinct, `${at}.${key}`, seen);
  return seen;
}

/** Plain JSON as JSON.parse makes it: arrays with only their items, objects of Object.prototype, finite numbers. */
function assertPlainJson(value: unknown, at = '$'): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') return assert.ok(Number.isFinite(value), `${at} is ${value}`);
  assert.equal(typeof value, 'object', `${at} is a ${typeof value}`);
  if (Array.isArray(value)) {
    assert.equal(Object.getOwnPropertyNames(value).length, value.length + 1, `${at} has properties besides its items`);
    value.forEach((item, i) => assertPlainJson(item, `${at}[${i}]`));
    return;
  }
  assert.equal(Object.getPrototypeOf(value), Object.prototype, `${at}'s prototype`);
  assert.deepEqual(Object.getOwnPropertyNames(value), Object.keys(value as object), `${at} has hidden properties`);
  for (const [key, v] of Object.entries(value as object)) assertPlainJson(v, `${at}.${key}`);
}

function assertOwnTree(answer: unknown, input: unknown): void {
  // No answer at all is one (a mapping whose value is undefined); within one, JSON has no undefined.
  if (answer === undefined) return;
  assertPlainJson(answer);
  const inputs = objectsOf(input, false, '$input');
  for (const [object, at] of objectsOf(answer, true)) assert.ok(!inputs.has(object), `${at} is the input's ${inputs.get(object)}`);
}

test('every fixture\'s compiled answer is plain JSON, a tree of its own', async () => {
  const registry = loadMappings(MAPPINGS_DIR, GATEWAY_IDS);
  let checked = 0;
  for (const [gateway, set] of registry) {
    for (const mapping of set.names()) {
      const dir = path.join(MAPPINGS_DIR, gateway, 'fixtures', mapping);
      for (const file of fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : []) {
        const fixture = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
        const { value, error } = await set.evaluateWith('compiled', mapping, fixture.input, fixture.bindings ?? {});
        if (error !== undefined) continue;
        assertOwnTree(value, fixture.input);
        checked++;
      }
    }
  }
  assert.ok(checked > 400, `${checked} answers checked`);
});

test('answers built plain agree with the interpreter where sequences, undefined and shared objects meet them', async () => {
  const exprs = [
    // Constructors in the answer's place, over one object or a list (grouped), nested, with values of every kind.
  // (No functions: the interpreter's lambdas are objects that refer to their environment, and copying one overflows
  // the stack; the compiled engine leaves functions out, as JSON does.)
    '{"a": a.b, "n": n, "none": missing, "o": {"s": s, "k": o.k, "deep": {"d": d}}}',
    'a.{"b": b}', '$.{"n": n}', '{"first": a[0], "all": a, "bs": a.b, "kept": a.b[], "one": [a.b], "nested": [[a.b]]}',
    '{"toJSON": n}', '{"toJSON": {"x": n}}',
    // Arrays: objects appended as they are, sequences and arrays flattened one level, `[...]` items kept whole.
    '[{"b": a.b}, a.b, [a.b], o, missing, {"x": missing}, n]', '[a, [a], a[0]]', '[]', '[{}]',
    // Conditions and blocks choosing between constructors and values that are sequences.
    'n ? {"n": n} : a.b', 'n ? a.b : [a.b]', 'missing ? {"x": 1}', 'n ? (s ? {"s": s} : {"n": n}) : a.b[]',
    '( $x := {"v": a.b}; {"p": $x, "q": $x, "r": [$x, $x]} )', '( $o := o; {"o": $o, "again": $o} )', '( a.b )', '( $v := a; $v )',
    '( $x := 1; ( $y := {"x": $x}; {"y": $y, "z": {"y": $y}} ) )', '{"$": $, "$$": $$}', '$', 'a', 'o',
  ];
  const inputs = [
    { a: [{ b: 1 }, { b: 2 }], n: 42, s: 'x', o: { k: 'v', w: [1, { z: 2 }] }, d: '2030-01-10' },
    { a: { b: [3, 4] }, n: null, s: '', o: {} }, { a: [], n: 0 }, { a: [{ b: { c: 1 } }], n: 'n', s: 's' }, [1, { b: 2 }], null,
  ];
  await assertEnginesAgree(exprs, inputs, {
    check: (compiled, input) => {
      if (compiled.error === undefined) assertOwnTree(compiled.value, input);
    },
  });
});

test('changing an answer changes neither the input nor another part of the answer', async () => {
  const set = new MappingSet('pagarme', new Map([['x', jsonata('( $a := {"city": c.city}; {"customer": {"address": $a}, "card": {"billing": $a}, "c": c} )')]]), {});
  const input = { c: { city: 'Recife' } };
  const answer = await set.evaluate('x', input);
  answer.customer.address.city = 'Olinda';
  answer.c.city = 'Olinda';
  assert.equal(answer.card.billing.city, 'Recife');
  assert.equal(input.c.city, 'Recife');
});
