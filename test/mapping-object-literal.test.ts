import { test } from 'node:test';
import assert from 'node:assert/strict';
import { objectLiteralConstructor } from '../src/mapping/compiled/object-literal';
import type { Fn } from '../src/mapping/compiled/runtime';
import { assertEnginesAgree } from './helpers/engines';

// Object constructors with constant keys are generated as JS source (src/mapping/compiled/object-literal.ts). Keys
// come from operator-editable mapping files: whatever they hold, they must reach the object as data, never as code.

const ODD_KEYS = [
  'plain', 'with space', "it's", 'say "hi"', 'back\\slash', 'trailing\\', 'new\nline', 'tab\t', '\u2028\u2029', 'ção ü 日本',
  '😀', '\ud800', '\udfff', '', '0', '1016', '-1', '1e3', 'constructor', 'toString', 'hasOwnProperty', '__proto', 'proto__',
  '"]; throw new Error("injected"); o["', '`${process.exit(1)}`', '*/ throw 1; /*', '</script>', '\0nul',
];

const constant = (v: unknown): Fn => () => v;

test('a generated object constructor stores every key as data, in order, leaving out undefined values', () => {
  const values = ODD_KEYS.map((key, i) => constant(i % 5 === 4 ? undefined : { key }));
  const build = objectLiteralConstructor(ODD_KEYS, values);
  assert.ok(build, 'the keys can be generated');
  const built = build(undefined, undefined as never) as Record<string, unknown>;
  const expected: Record<string, unknown> = {};
  ODD_KEYS.forEach((key, i) => {
    if (i % 5 !== 4) expected[key] = { key };
  });
  assert.deepEqual(built, expected);
  assert.deepEqual(Object.keys(built), Object.keys(expected));
  assert.equal(Object.getPrototypeOf(built), Object.prototype);
  // Each call builds a new object.
  assert.notEqual(build(undefined, undefined as never), built);
});

test('a key that would not be a data property (__proto__) is not generated: the constructor keeps its general path', () => {
  assert.equal(objectLiteralConstructor(['a', '__proto__'], [constant(1), constant(2)]), undefined);
  assert.deepEqual(objectLiteralConstructor([], [])?.(undefined, undefined as never), {});
  assert.equal(objectLiteralConstructor(['a'], []), undefined);
});

test('mappings with odd constant keys answer what the interpreter answers', async () => {
  const sources = [
    `{${ODD_KEYS.map((key, i) => `${JSON.stringify(key)}: ${i % 3 === 0 ? 'missing' : i % 3 === 1 ? 'n' : `{${JSON.stringify(key)}: s}`}`).join(', ')}}`,
    '{"__proto__": n, "a": s}', '{"a": n, "a": s}', '{"toJSON": n}', 'a.{"k\\"": b}',
  ];
  const inputs = [{ n: 1, s: 'x', a: [{ b: 1 }, { b: 2 }] }, { n: null, s: { deep: [1] } }, {}, [1, 2]];
  await assertEnginesAgree(sources, inputs);
});
