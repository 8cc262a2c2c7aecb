import assert from 'node:assert/strict';
import jsonata from 'jsonata';
import { MappingSet } from '../../src/mapping/loader';

/**
 * Each expression is served by the compiled engine, and on every input it answers (value or error) what the
 * interpreter answers. The interpreter gets a copy of each input; so does the compiled engine unless `check` is
 * given, which then receives the compiled answer and the very input object it was computed from.
 */
export async function assertEnginesAgree(
  sources: readonly string[], inputs: readonly unknown[],
  opts: { bindings?: Record<string, unknown>; check?: (compiled: { value?: unknown; error?: unknown }, input: unknown) => void } = {},
): Promise<void> {
  for (const src of sources) {
    const set = new MappingSet('pagarme', new Map([['x', jsonata(src)]]), {});
    assert.equal(set.engines().get('x')?.engine, 'compiled', src);
    for (const input of inputs) {
      const interpreted = await set.evaluateWith('interpreter', 'x', structuredClone(input), opts.bindings);
      const compiled = await set.evaluateWith('compiled', 'x', opts.check ? input : structuredClone(input), opts.bindings);
      assert.deepEqual(compiled, interpreted, `${src} on ${JSON.stringify(input)}`);
      opts.check?.(compiled, input);
    }
  }
}
