import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatedNamePath } from '../src/mapping/compiled/name-path';
import type { Fn } from '../src/mapping/compiled/runtime';
import { assertEnginesAgree } from './helpers/engines';

// A path of a variable or a name then names (`$c.customer.name`, `response.charges`) is walked by generated JS source
// (src/mapping/compiled/name-path.ts). Names come from operator-editable mapping files: they must reach the code as
// data, and each step must read what jsonata reads: an object's own property, nothing from its prototype or from a
// jsonata function, a sequence collapsed, the general path at an array.

const ODD = ['with space', "it's", 'say "hi"', 'back\\slash', 'new\nline', '\u2028', 'ção', '😀', '\ud800', '', '0', '__proto__',
  'constructor', 'toString', 'hasOwnProperty', '_jsonata_function', '"]; throw new Error("injected"); x["', '`${process.exit(1)}`'];

test('a generated name path reads each key as data', () => {
  const root: Record<string, unknown> = {};
  let at = root;
  for (const key of ODD) {
    const next: Record<string, unknown> = {};
    Object.defineProperty(at, key, { value: next, enumerable: true, writable: true, configurable: true });
    at = next;
  }
  at.end = 'reached';
  const walk = generatedNamePath(() => root, [...ODD, 'end'], () => 'general');
  assert.ok(walk);
  assert.equal(walk(undefined, undefined as never), 'reached');
  // An inherited name is not the object's: `constructor` on a plain object is nothing.
  assert.equal(generatedNamePath(() => ({}), ['constructor'], () => 'general')!(undefined, undefined as never), undefined);
  assert.equal(generatedNamePath(() => [{}], ['a'], () => 'general')!(undefined, undefined as never), 'general');
  assert.equal(generatedNamePath((() => 1) as Fn, [], () => 'general'), undefined);
});

test('variable paths with odd names answer what the interpreter answers', async () => {
  const name = (key: string) => `\`${key.replace(/`/g, '``')}\``;
  const sources = [
    ...ODD.filter((k) => !k.includes('`')).map((k) => `( $v := o; $v.${name(k)} )`),
    '( $v := o; $v.a.b.c )', '( $v := o; $v.list.b )', '( $v := o; $v.one.b )', '( $v := o; $v.s.length )', '( $v := o.list; $v.b )',
    '( $v := o.list.b; $v.x )', '( $v := $string; $v.implementation )', '( $v := o; $v.`__proto__`.x )', '$$.o.a.b',
    '( $f := function($x) { $x.a.b }; [$f(o), $f(o.list), $f(o.a)] )', '( $v := o.none; $v.a )', '( $v := o; $v.nul.a )',
    // From the context: over one object, a list, a scalar; inside filters and object constructors over lists.
    'o', ...ODD.filter((k) => !k.includes('`')).map((k) => `o.${name(k)}`), 'o.a.b.c', 'o.list.b', 'o.one.b', 'o.s.length',
    'o.list[b > 1].b', 'o.list.{"b": b}', 'o.a.{"c": b.c}', '$.o.a', 'o.list#$i.{"i": $i, "b": b}', '$map(o.list, function($v) { $v.b })',
  ];
  const inputs = [
    { o: { a: { b: { c: 1 } }, list: [{ b: 1 }, { b: [2, 3] }], one: [{ b: 'x' }], s: 'str', nul: null, ...JSON.parse('{"__proto__": {"x": "own"}}') } },
    { o: { a: [{ b: 1 }], list: { b: 2 }, one: [], s: 1 } }, { o: [] }, {}, null,
  ];
  await assertEnginesAgree(sources, inputs);
});
