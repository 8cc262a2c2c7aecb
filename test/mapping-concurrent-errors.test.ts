import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import jsonata from 'jsonata';
import { loadMappings, MAPPING_LIMITS, MappingEvaluationError, MappingSet } from '../src/mapping/loader';
import { MAPPINGS_DIR } from '../src/lib/paths';
import { compileExpression, ConcurrentErrors } from '../src/mapping/compiled';
import { assertEnginesAgree } from './helpers/engines';

// jsonata evaluates an object constructor's values and an array constructor's items concurrently; when two fail,
// it raises the one that reaches its throw through fewer awaits, not the first in source order
// (src/mapping/compiled/concurrent.ts). The two divergences the differential test found with FC_SEED=498905146 and
// FC_SEED=7 were this, each on one input alone: no earlier evaluation is needed to reproduce them.

const registry = loadMappings(MAPPINGS_DIR, ['asaas', 'pagbank']);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function fixture(gateway: string, mapping: string, file: string): { input: any; bindings: Record<string, unknown> } {
  const parsed = JSON.parse(fs.readFileSync(path.join(MAPPINGS_DIR, gateway, 'fixtures', mapping, file), 'utf8'));
  return { input: parsed.input, bindings: parsed.bindings ?? {} };
}

async function bothEngines(set: MappingSet, mapping: string, input: unknown, bindings: Record<string, unknown>) {
  const interpreted = await set.evaluateWith('interpreter', mapping, structuredClone(input), bindings);
  const compiled = await set.evaluateWith('compiled', mapping, structuredClone(input), bindings);
  return { interpreted, compiled };
}

test('FC_SEED=498905146: a description that is not a string and installments that are a list fail both, and jsonata raises T2010', async () => {
  const { input, bindings } = fixture('asaas', 'charge.request', '001-credit-card-raw.json');
  // `$substring($c.description, 0, 500)` refuses a number (T0410); `$card.installments > 1` refuses a list (T2010).
  input.charge.description = 5e-324;
  input.charge.creditCard.installments = [];
  const { interpreted, compiled } = await bothEngines(registry.get('asaas')!, 'charge.request', input, bindings);
  assert.deepEqual(interpreted, { error: 'T2010' });
  assert.deepEqual(compiled, interpreted);
});

test('FC_SEED=7: without $amountUnit and with a currency that is an object, jsonata raises T0410 before the unit binding fails', async () => {
  const { input, bindings } = fixture('pagbank', 'native.response', '018-unit-not-bound.json');
  // `$uppercase($c.currency)` refuses an object (T0410); `$unit(...)` fails in $toUnit (no unit bound).
  input.charge.currency = { code: 'BRL' };
  const { interpreted, compiled } = await bothEngines(registry.get('pagbank')!, 'native.response', input, bindings);
  assert.deepEqual(interpreted, { error: 'T0410' });
  assert.deepEqual(compiled, interpreted);
});

test('object and array constructors whose values fail with different errors answer jsonata\'s error, in any order and nesting', async () => {
  const sources = [
    "{'a': $substring(n, 0, 1), 'b': list > 1}", "{'b': list > 1, 'a': $substring(n, 0, 1)}",
    '[$substring(n, 0, 1), list > 1]', "[{'a': $substring(n, 0, 1)}, list > 1]", "{'o': {'a': $substring(n, 0, 1), 'b': list > 1}, 'c': 1}",
    "{'a': $substring(n, 0, 1), 'b': $f(n)}", "{'a': $f(n), 'b': $substring(n, 0, 1)}",
    // Keys that are not literals: the general path of the object constructor.
    "{k: $substring(n, 0, 1), 'b': list > 1}",
    // One failure, or failures with one code, are thrown as they are.
    "{'a': $substring(n, 0, 1), 'b': 1}", "{'a': list > 1, 'b': list < 1}",
  ];
  const fails = () => {
    throw new Error('binding failed');
  };
  await assertEnginesAgree(sources, [{ n: 5, list: [1, 'a'], k: 'a' }, { n: 's', list: 1, k: 'a' }], { bindings: { f: fails } });
});

test('the compiled engine names the competing failures and leaves the choice to the interpreter; MappingSet.evaluate answers jsonata\'s error', async () => {
  const expression = jsonata("{'a': $substring(n, 0, 1), 'b': list > 1}");
  const { fn } = compileExpression(expression);
  assert.throws(() => fn!({ n: 5, list: [1, 'a'] }, {}, MAPPING_LIMITS), (err: unknown) => {
    assert.ok(err instanceof ConcurrentErrors);
    assert.deepEqual(err.errors.map((e) => (e as { code: string }).code), ['T0410', 'T2010']);
    return true;
  });
  const set = new MappingSet('pagarme', new Map([['x', expression]]), {});
  await assert.rejects(set.evaluate('x', { n: 5, list: [1, 'a'] }), (err: unknown) => err instanceof MappingEvaluationError && /T2010/.test(err.message));
});
