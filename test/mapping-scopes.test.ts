import { test } from 'node:test';
import assert from 'node:assert/strict';
import jsonata from 'jsonata';
import { MappingSet } from '../src/mapping/loader';
import { assertEnginesAgree } from './helpers/engines';

// Compiled mappings keep variables in numbered slots, one array per frame (src/mapping/compiled/slots.ts), where
// they were a Map per frame. What a name resolves to must not change: the innermost frame that bound it (to anything,
// undefined included), else the evaluation's bindings, else the built-in.

const exprs = [
  // Bound in a condition only when that branch runs; read before and after its binding; shadowed by undefined.
  '( $x := 1; ( n ? ($x := 2) : 0; $x ) )', '( $x := 1; ( ( n ? ($x := 2) : 0 ); $x ) )', '( $y := $x; $x := 3; [$y, $x] )',
  '( $x := 1; ( $x := missing; $x ) )', '( $x := 1; ( $x := missing; $exists($x) ) )', '( $x := 1; ( $z := 2 ); $z )',
  // A name the expression binds that the caller's bindings also give: the binding until the expression binds it.
  '( $before := $bound; $bound := "mine"; [$before, $bound] )', '[$bound, $digits(s)]', '( $digits := function($v) { "mine" }; $digits(s) )',
  // Lambdas: parameters shadow, missing arguments are bound to nothing, closures keep the frame they were made in.
  '( $x := 1; $f := function($x) { $x }; [$f(2), $f(), $x] )', '( $f := function($a, $b) { [$a, $b] }; $f(1) )',
  '( $mk := function($n) { function($m) { $n + $m } }; $add2 := $mk(2); $add5 := $mk(5); [$add2(1), $add5(1)] )',
  '( $f := function($n) { $n <= 0 ? 0 : ( $n := $n - 1; 1 + $f($n) ) }; $f(5) )', '( $g := function($x) { $x.b }; a.$g($) )',
  '$map([1, 2, 3], function($v, $i) { $v * $i })', '$filter(a, function($v, $i) { $i > 0 })', '( $k := "w"; $each(o, function($v, $k) { $k }) )',
  // Positional bindings in paths and filters, nested; the input as $$.
  'a#$i.{"i": $i, "b": b}', 'a#$i[$i > 0].b', 'a#$i.(b#$j.{"i": $i, "j": $j})', '( $i := "outer"; [a#$i.b, $i] )', '$$.n', '( $x := $$; $x.n )',
  '{"n": n, "in": ( $n := n; {"n": $n} )}', '( $a := a; $a[0].b )', 'a.( $x := b; $x * 2 )', '( $x := 10; a.( $x := b; $x ) )',
];
const inputs = [{ a: [{ b: 1 }, { b: 2 }], n: 1, s: '1.2-3', o: { k: 'v', w: 2 } }, { a: { b: [3, 4] }, n: 0, s: 'x' }, {}, null];
const bindings = { bound: 'given' };

test('variables resolve as the interpreter resolves them: frames, conditions, lambdas, positional bindings', async () => {
  await assertEnginesAgree(exprs, inputs, { bindings });
});

test('one evaluation\'s variables are not seen by the next', async () => {
  const set = new MappingSet('pagarme', new Map([['x', jsonata('( $seen := $x; $x := n; $seen )')]]), {});
  assert.equal(await set.evaluate('x', { n: 1 }), undefined);
  assert.equal(await set.evaluate('x', { n: 2 }), undefined);
  assert.equal(await set.evaluate('x', { n: 3 }, { x: 'bound' }), 'bound');
});
