// An object constructor with constant keys (`{'code': ..., 'amount': ...}`) as generated JS source: one store per
// key at its own site in the code, so V8 caches each store for the one or two shapes that site meets. A loop over
// the keys stores through a single site that meets every constructor's every shape (megamorphic: a hash lookup
// per field), which made these the largest frame of a mapping's profile.
import { budget, type Fn } from './runtime';
import { concurrentFailure } from './concurrent';

/**
 * Keys that cannot be written as a plain `o[key] = v` on a fresh `{}` with the meaning of a data property:
 * `__proto__` would set the prototype. Callers leave such constructors on their general path.
 */
export const unsafeLiteralKey = (key: string): boolean => key === '__proto__';

/** Beyond this many keys the loop is used: a generated function that size gains nothing and costs compile time. */
const MAX_GENERATED_KEYS = 256;

/**
 * `(input, env) => { key0: values[0](input, env), ... }` leaving out the keys whose value is undefined, in key order
 * (the order jsonata's grouping inserts them); undefined when these keys cannot be generated (or the platform
 * forbids code generation, `--disallow-code-generation-from-strings`), and the caller keeps its loop.
 */
export function objectLiteralConstructor(keys: readonly string[], values: readonly Fn[]): Fn | undefined {
  if (keys.length !== values.length || keys.length > MAX_GENERATED_KEYS || keys.some(unsafeLiteralKey)) return undefined;
  if (keys.length === 0) return () => ({});
  // Mapping files are operator-editable: a key reaches the source only as a JSON string literal (a valid JS string
  // literal for every string, U+2028, U+2029 and lone surrogates included), never spliced in as written.
  // `at` is the value being evaluated: on a failure the values after it are evaluated too, as jsonata evaluates
  // them concurrently (concurrent.ts); the store costs nothing measurable on the path that succeeds.
  const lines = keys.map((key, i) => `    at = ${i};\n    v = f${i}(input, env);\n    if (v !== undefined) o[${JSON.stringify(key)}] = v;`);
  const params = keys.map((_key, i) => `f${i}`);
  const source = `return function objectLiteral(input, env) {\n  const o = {};\n  const depth = budget.depth;\n  let v;\n  let at = 0;\n  try {\n${lines.join('\n')}\n  } catch (err) {\n    throw failed(err, depth, at, input, env);\n  }\n  return o;\n};`;
  const failed = (err: unknown, depth: number, at: number, input: unknown, env: unknown): unknown =>
    concurrentFailure(err, depth, at, values.length, (i) => values[i](input, env as never));
  try {
    return new Function('budget', 'failed', ...params, source)(budget, failed, ...values) as Fn;
  } catch {
    return undefined;
  }
}
