import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { loadMappings, type MappingRegistry } from '../src/mapping/loader';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { TEMPLATE_ID } from '../src/cli/new-gateway';
import { MAPPINGS_DIR } from '../src/lib/paths';

// A mapping's answer is one generated function (src/mapping/compiled/codegen.ts); the closures it replaces stay for
// platforms that forbid generating code. test/mapping-compiler.test.ts holds the generated code to the interpreter;
// here it is held to the closures, node for node the same semantics, on the fixtures and on inputs derived from them.

const GATEWAYS = [...GATEWAY_IDS, TEMPLATE_ID];
const generated: MappingRegistry = loadMappings(MAPPINGS_DIR, GATEWAYS);
const closures: MappingRegistry = loadMappings(MAPPINGS_DIR, GATEWAYS, { generate: false });

interface Case { gateway: string; mapping: string; file: string; input: unknown; bindings: Record<string, unknown> }

const ALL: Case[] = [...generated].flatMap(([gateway, set]) => set.names().flatMap((mapping) => {
  const dir = path.join(MAPPINGS_DIR, gateway, 'fixtures', mapping);
  return (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : []).map((file) => {
    const fixture = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    return { gateway, mapping, file: `${gateway}/${mapping}/${file}`, input: fixture.input, bindings: fixture.bindings ?? {} };
  });
}));

async function both(c: Case, input: unknown) {
  const run = (registry: MappingRegistry) => registry.get(c.gateway as never)!.evaluateWith('compiled', c.mapping, structuredClone(input), c.bindings);
  return { generated: await run(generated), closures: await run(closures) };
}

test('every shipped mapping is one generated function, and turning generation off leaves the closures', () => {
  for (const [gateway, set] of generated) {
    for (const [name, engine] of set.engines()) assert.deepEqual(engine, { engine: 'compiled', generated: true }, `${gateway}/${name}`);
  }
  for (const [gateway, set] of closures) {
    for (const [name, engine] of set.engines()) assert.deepEqual(engine, { engine: 'compiled', generated: false }, `${gateway}/${name}`);
  }
});

test('the generated function and the closures give the same answer or error on every fixture', async () => {
  assert.ok(ALL.length > 500, 'the fixtures were found');
  for (const c of ALL) {
    const answers = await both(c, c.input);
    assert.deepEqual(answers.generated, answers.closures, c.file);
  }
});

/** Every path into a JSON value: object keys and array indexes. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return [];
  const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => [[...prefix, k], ...paths((value as Record<string | number, unknown>)[k], [...prefix, k])]);
}

/** The input with one place (picked by `at`) dropped, nulled or replaced by `value` (a copy). */
function mutate(input: unknown, at: number, op: 'drop' | 'null' | 'value', value: unknown): unknown {
  const copy = structuredClone(input);
  const all = paths(copy);
  if (all.length === 0) return copy;
  const p = all[at % all.length];
  let parent = copy as Record<string | number, unknown>;
  for (const k of p.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = p[p.length - 1];
  if (op === 'drop') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = op === 'null' ? null : structuredClone(value);
  return copy;
}

const oddValue = fc.oneof(
  fc.constantFrom('', '0', '10.99', 'abc', 'credit_card', 'pix', 'boleto', 'BRL', '2030-01-10T12:00:00Z'),
  fc.integer({ min: -5, max: 200000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  fc.boolean(), fc.constant([]), fc.constant({}), fc.jsonValue({ maxDepth: 2 }),
);

test('the generated function and the closures agree on inputs derived from the fixtures (fast-check)', async () => {
  const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20261127;
  await fc.assert(
    fc.asyncProperty(
      fc.nat(ALL.length - 1), fc.array(fc.tuple(fc.nat(), fc.constantFrom<'drop' | 'null' | 'value'>('drop', 'null', 'value'), oddValue), { minLength: 1, maxLength: 3 }),
      async (i, mutations) => {
        const c = ALL[i];
        const input = mutations.reduce((v, [at, op, value]) => mutate(v, at, op, value), c.input);
        const answers = await both(c, input);
        assert.deepEqual(answers.generated, answers.closures, c.file);
      },
    ),
    { numRuns: 1500, seed, includeErrorInReport: true },
  );
});
