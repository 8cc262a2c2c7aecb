// `$var.a.b` walked by generated JS source: each name step reads its constant key at a site of its own, so V8
// caches each read for the shapes that step meets. The shared lookupOwn reads every key of every path at one site
// (a megamorphic read per step, and two more for the function markers it checks on each object).
import { collapse, type Fn } from './runtime';

/** Beyond this many names the loop is used: a path that long is rare, and its generated function gains nothing. */
const MAX_GENERATED_STEPS = 32;

/**
 * What variablePath's loop gives (lookupOwn at each name, the general path at the first array), generated for these
 * keys; undefined when code generation is unavailable (`--disallow-code-generation-from-strings`).
 */
export function generatedNamePath(first: Fn, keys: readonly string[], general: Fn): Fn | undefined {
  if (keys.length === 0 || keys.length > MAX_GENERATED_STEPS) return undefined;
  // Mapping files are operator-editable: a key reaches the source only as a JSON string literal, never as written.
  // Each step is lookupOwn inline: an object's own property (not a jsonata function's), a sequence collapsed; an
  // array (after collapsing) hands the whole path over to the general walk.
  const steps = keys.map((key) => {
    const k = JSON.stringify(key);
    return `  if (value === null || typeof value !== 'object' || !hasOwn.call(value, ${k}) || value._jsonata_function === true || value._jsonata_lambda === true) return undefined;
  value = value[${k}];
  if (Array.isArray(value)) {
    if (value.sequence !== true) return general(input, env);
    value = collapse(value, false);
    if (Array.isArray(value)) return general(input, env);
  }`;
  });
  const source = `return function namePath(input, env) {
  let value = first(input, env);
  if (Array.isArray(value)) return general(input, env);
${steps.join('\n')}
  return value;
};`;
  try {
    return new Function('first', 'general', 'collapse', 'hasOwn', source)(first, general, collapse, Object.prototype.hasOwnProperty) as Fn;
  } catch {
    return undefined;
  }
}
