import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import jsonata from 'jsonata';
import fc from 'fast-check';
import { loadMappings, MappingBudgetError, MappingSet, type MappingRegistry } from '../src/mapping/loader';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { TEMPLATE_ID } from '../src/cli/new-gateway';
import { MAPPINGS_DIR } from '../src/lib/paths';
import { toPublicError } from '../src/charges/outcomes';
import { builtins } from '../src/mapping/compiled/runtime';
import { quickCheck } from '../src/mapping/compiled/signatures';

// The compiled mappings must answer what the jsonata interpreter answers: on every fixture as written, and on
// inputs derived from the fixtures (values changed to other types, fields dropped, nulls added), where the
// mappings meet the undefined-vs-null, singleton-vs-array and type-error corners.

const registry: MappingRegistry = loadMappings(MAPPINGS_DIR, [...GATEWAY_IDS, TEMPLATE_ID]);

interface Case { gateway: string; mapping: string; file: string; input: unknown; bindings: Record<string, unknown> }

function cases(): Case[] {
  const out: Case[] = [];
  for (const [gateway, set] of registry) {
    for (const mapping of set.names()) {
      const dir = path.join(MAPPINGS_DIR, gateway, 'fixtures', mapping);
      for (const file of fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : []) {
        const fixture = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
        out.push({ gateway, mapping, file: `${gateway}/${mapping}/${file}`, input: fixture.input, bindings: fixture.bindings ?? {} });
      }
    }
  }
  return out;
}

async function bothEngines(set: MappingSet, mapping: string, input: unknown, bindings: Record<string, unknown>) {
  // structuredClone: the interpreter and the compiled code each get their own copy, so neither sees the other's writes.
  const run = (engine: 'interpreter' | 'compiled') => set.evaluateWith(engine, mapping, structuredClone(input), bindings);
  let interpreted = await run('interpreter');
  let compiled = await run('compiled');
  // The time budget is wall-clock: on a busy machine a fixture can meet it on one engine only. Such a case is run
  // again (twice at most) before it counts; a real runaway stops both engines every time.
  for (let retry = 0; retry < 2 && [interpreted, compiled].some(stoppedByTime); retry++) {
    interpreted = await run('interpreter');
    compiled = await run('compiled');
  }
  return { interpreted, compiled };
}

const stoppedByTime = (answer: unknown) => /ran longer than \d+ ms/.test(JSON.stringify(answer) ?? '');

const ALL = cases();

test('every shipped mapping compiles to JavaScript (none left on the interpreter)', () => {
  const interpreted = [...registry].flatMap(([gateway, set]) => [...set.engines()]
    .filter(([, e]) => e.engine === 'interpreter').map(([name, e]) => `${gateway}/${name}: ${e.engine === 'interpreter' ? e.reason : ''}`));
  assert.deepEqual(interpreted, []);
});

test('compiled and interpreted mappings give the same answer on every fixture', async () => {
  assert.ok(ALL.length > 500, 'the fixtures were found');
  for (const c of ALL) {
    const { interpreted, compiled } = await bothEngines(registry.get(c.gateway as never)!, c.mapping, c.input, c.bindings);
    assert.deepEqual(compiled, interpreted, c.file);
  }
});

/** Every path into a JSON value: object keys and array indexes. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return [];
  const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => [[...prefix, k], ...paths((value as Record<string | number, unknown>)[k], [...prefix, k])]);
}

type Mutation = { at: number; op: 'drop' | 'null' | 'value'; value: unknown };

function mutate(input: unknown, mutations: Mutation[]): unknown {
  const copy = structuredClone(input);
  for (const m of mutations) {
    const all = paths(copy);
    if (all.length === 0) break;
    const p = all[m.at % all.length];
    let parent = copy as Record<string | number, unknown>;
    for (const k of p.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
    const last = p[p.length - 1];
    // A value is stored as a copy: fast-check hands the same value objects to later runs and to its report, and a
    // later mutation of this input can write inside the value (a path into it). Stored as it was, the counterexample
    // printed after shrinking was not the input that failed, and ran alone it did not fail.
    if (m.op === 'drop') {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last];
    } else parent[last] = m.op === 'null' ? null : structuredClone(m.value);
  }
  return copy;
}

// Values a gateway or a client could send where another type was expected: numbers as strings, floats with
// cents noise, empty strings, arrays where an object was, and the like.
const oddValue = fc.oneof(
  fc.constantFrom('', ' ', '0', '10.99', 'abc', 'credit_card', 'pix', 'boleto', 'approved', 'BRL', '2030-01-10', '2030-01-10T12:00:00Z'),
  fc.integer({ min: -5, max: 200000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  fc.boolean(), fc.constant([]), fc.constant({}), fc.jsonValue({ maxDepth: 2 }),
);
const mutation = fc.record({ at: fc.nat(), op: fc.constantFrom<Mutation['op']>('drop', 'null', 'value', 'value'), value: oddValue });

test('compiled and interpreted mappings agree on inputs derived from the fixtures (fast-check)', async () => {
  const byMapping = new Map<string, Case[]>();
  for (const c of ALL) byMapping.set(`${c.gateway}/${c.mapping}`, [...(byMapping.get(`${c.gateway}/${c.mapping}`) ?? []), c]);
  // A fixed seed keeps CI deterministic; FC_SEED explores others. Seeds 498905146 and 7 found two values of one
  // object constructor failing with different errors, which jsonata evaluates concurrently
  // (src/mapping/compiled/concurrent.ts); test/mapping-concurrent-errors.test.ts keeps both inputs.
  const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261123;
  for (const [name, list] of byMapping) {
    const set = registry.get(list[0].gateway as never)!;
    await fc.assert(
      fc.asyncProperty(fc.nat(list.length - 1), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (i, mutations) => {
        const input = mutate(list[i].input, mutations);
        const { interpreted, compiled } = await bothEngines(set, list[i].mapping, input, list[i].bindings);
        assert.deepEqual(compiled, interpreted, `${name} from ${list[i].file}`);
      }),
      { numRuns: 60, seed, includeErrorInReport: true },
    );
  }
});

test('jsonata semantics the mappings lean on: undefined vs null, singletons, conversions, paths over arrays', async () => {
  const exprs = [
    'a', 'a.b', 'a[0]', 'a[]', 'a.b[]', '[a.b]', 'a[b = 1]', 'a[-1]', 'a#$i.{"i": $i, "v": b}', '$count(a)', '$string(n)', '$number(s)',
    '$string(1e21)', '$string(0.1 + 0.2)', '{"x": missing, "y": null}', 'a.b ? "yes" : "no"', '$exists(a.c)', '$type(a)', '$sum(a.b)',
    '$join(a.b.$string(), ",")', '$substring(s, 1, 2)', '$split("a,b,,c", ",")', '$contains(s, /^1/)', '$keys(o)', '$merge([o, {"z": 1}])',
    '$lookup(o, "k")', '$sort(a.b, function($x, $y) { $x < $y })', '$each(o, function($v, $k) { $k & "=" & $v })', '[1..3]', 'o.*',
    '(  $f := function($n) { $n <= 1 ? 1 : $n * $f($n - 1) }; $f(10) )', 'a.b > 1', '"x" & n & null', 'n in [1, 2]', '-n', '$not(a)',
    '$append(a, [5])', '$distinct([1, 1, 2])', '$uppercase(s)', '$replace("a_b_c", "_", "-")', '$fromMillis($toMillis("2030-01-01T00:00:00Z"))',
    '$formatInteger(7, "00")', '$round(2.5)', '$abs(-3)', '$max([1, 5])', '$trim("  x ")', '$error("boom")', 'a.b + "x"', '$$.n',
    // Scopes (a block's variables shadow, even when bound to nothing) and the one-object shortcuts of paths and
    // object constructors, against lists and nested arrays.
    '( $x := 1; ( $x := 2; $y := $x ); [$x, $y] )', '( $x := 1; ( $x := missing; $x ) )', '( $f := function($v) { $v.b }; $f(a) )',
    '{"a": a.b, "n": n, "o": {"s": s, "none": missing}}', 'a.{"v": b}', '$.{"n": n}', 'a.[b]', 'o.k[]', 'a.b[0]', '{"k": $}',
    // Built-ins resolved at compile time (not when rebound), their quick signature check (optional and context
    // arguments, wrong types), and paths of a variable then names over objects, arrays and scalars.
    '( $string := function($v) { "mine" }; $string(n) )', '( $f := function($uppercase) { $uppercase }; $f(s) )', '$substring(s, 1)',
    's.$uppercase()', '$uppercase(n)', '$count(a)', '$count(n)', '$join(["x", s], "-")', '$string(o)', '$lookup(o, "k")',
    '( $v := o; $v.k )', '( $v := a; $v.b )', '( $v := $; $v.a.b )', '( $v := n; $v.x.y )', '( $v := [o, o]; $v.k )', '$$.o.k',
  ];
  const inputs = [{ a: [{ b: 1 }, { b: 2 }], n: 42, s: '12.50', o: { k: 'v', w: 2 } }, { a: { b: 3 }, n: null, s: '', o: {} }, { a: [], n: '1' }, [1, 2], null];
  for (const src of exprs) {
    const expression = jsonata(src);
    const one = new MappingSet('pagarme', new Map([['x', expression]]), {});
    assert.equal(one.engines().get('x')?.engine, 'compiled', src);
    for (const input of inputs) {
      const { interpreted, compiled } = await bothEngines(one, 'x', input, {});
      assert.deepEqual(compiled, interpreted, `${src} on ${JSON.stringify(input)}`);
    }
  }
});

test('a binding named like a built-in wins over it, as in the interpreter', async () => {
  const one = new MappingSet('pagarme', new Map([['x', jsonata('[$uppercase(s), $count(a), $string = "not a function"]')]]), {});
  const bindings = { uppercase: (v: string) => `bound ${v}`, string: 'not a function' };
  for (const input of [{ s: 'a', a: [1] }, {}]) {
    const { interpreted, compiled } = await bothEngines(one, 'x', input, bindings);
    assert.deepEqual(compiled, interpreted);
  }
  // The binding wins in its evaluation only.
  assert.deepEqual((await one.evaluateWith('compiled', 'x', { s: 'a', a: [1] }, bindings)).value, ['bound a', 1, true]);
  assert.deepEqual((await one.evaluateWith('compiled', 'x', { s: 'a', a: [1] }, {})).value, ['A', 1, false]);
});

test('the time budget counts the work done, not the time the process waited for a core', async () => {
  // A binding that blocks the thread without using the CPU, as a descheduled process or a container at its CPU quota
  // waits: 150 ms of waiting, then a few thousand nodes of real work, well within the budget.
  const waitWithoutWork = () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150);
    return 1;
  };
  const set = new MappingSet('pagarme', new Map([['charge.request', jsonata('( $w := $wait(); $count([1..3000].($string($) & "x")) + $w )')]]), {});
  assert.equal(set.engines().get('charge.request')?.engine, 'compiled');
  assert.equal(await set.evaluate('charge.request', {}, { wait: waitWithoutWork }), 3001);
});

test('a mapping that recurses or loops without end is stopped with a clear error, on both engines', async () => {
  const recursion = new MappingSet('pagarme', new Map([['charge.request', jsonata('( $f := function($n) { $f($n + 1) }; $f(0) )', { stack: 500, timeout: 1000 } as never)]]), {});
  const loop = new MappingSet('pagarme', new Map([['charge.request', jsonata('( $f := function($n) { $n > 0 ? $f($n - 1) + $f($n - 1) : 0 }; $f(40) )', { stack: 500, timeout: 1000 } as never)]]), {});
  for (const set of [recursion, loop]) {
    assert.equal(set.engines().get('charge.request')?.engine, 'compiled');
    await assert.rejects(set.evaluate('charge.request', {}), (err: unknown) => {
      assert.ok(err instanceof MappingBudgetError, String(err));
      assert.match(err.message, /mapping pagarme\/charge\.request failed: stopped: it (nested deeper than 500|ran longer than 100 ms)/);
      const pub = toPublicError(err, 'pagarme');
      assert.equal(pub.code, 'GATEWAY_ERROR');
      assert.match(pub.message, /RouteGate stopped the pagarme mapping \(pagarme\/charge\.request\)/);
      return true;
    });
  }
  // The interpreter path has the same guardrails (jsonata's stack and timeout options).
  const interpreted = new MappingSet('pagarme', new Map([['charge.request', jsonata('( $f := function($n) { $f($n + 1) }; $f(0) )', { stack: 500, timeout: 1000 } as never)]]), {}, { compile: false });
  await assert.rejects(interpreted.evaluate('charge.request', {}), MappingBudgetError);
});

test('the quick signature check passes a built-in\'s arguments as jsonata\'s validation does, or leaves them to it', () => {
  // Every built-in, every list of up to three arguments drawn from each type (missing, null, functions, typed and
  // untyped arrays...): where the quick check answers, jsonata's validation accepts and passes the same arguments.
  const fn = Object.assign(() => 1, { arity: 1 });
  const values: unknown[] = [
    undefined, null, 'x', '', 3, 0, true, [], [1, 2], ['a'], [{}], { a: 1 }, fn, builtins.string,
    // Typed arrays ($join's a<s>, $sum's a<n>, $merge's a<o>): items all of one type, mixed, nested, null.
    ['a', 'b'], [{}, { b: 2 }], [1, 'a'], ['a', 1], [{}, 1], [[1]], [null], [true, false], [fn],
  ];
  let answered = 0;
  for (const [name, builtin] of Object.entries(builtins)) {
    if (!builtin.signature) continue;
    const quick = quickCheck(builtin.signature.definition);
    const check = (args: unknown[]): void => {
      const got = quick?.([...args]);
      if (got !== undefined) {
        answered++;
        assert.deepStrictEqual(got, builtin.signature.validate([...args], 'context'), `$${name}${builtin.signature.definition} on ${args.length} arguments`);
      }
      if (args.length < 3) for (const v of values) check([...args, v]);
    };
    check([]);
  }
  assert.ok(answered > 500, 'the quick check answers the plain cases');
});
