import type jsonata from 'jsonata';
import { compileRoot, Unsupported } from './compile';
import { budget, focus, Scope, seq, shadowed, type Fn } from './runtime';
import { INPUT_SLOT, type Slots } from './slots';

export { BudgetExceeded, NeedsInterpreter } from './runtime';
export { toPlain } from './plain';
export { ConcurrentErrors, describeError } from './concurrent';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * How a mapping is evaluated: `compiled` (plain synchronous JS; `generated` when its answer is one generated function,
 * codegen.ts, else a tree of closures, compile.ts) or `interpreter` with the reason.
 */
export type EnginePath = { engine: 'compiled'; generated: boolean } | { engine: 'interpreter'; reason: string };

export interface Limits {
  /** Nested evaluations (calls, blocks, a lambda call as deep as its body nests) before the evaluation is stopped. */
  maxDepth: number;
  /** Milliseconds of CPU time the evaluation may run before it is stopped (not time spent waiting for a core). */
  maxMs: number;
}

/** A compiled mapping: its answer is plain JSON already (what toPlain gives for the interpreter's). */
export type CompiledMapping = (input: unknown, bindings: Record<string, unknown>, limits: Limits) => unknown;

/** The AST jsonata parsed (`expression.ast()`) -> a synchronous function, or why it stays on the interpreter. */
export function compileExpression(expression: ReturnType<typeof jsonata>, options: { generate?: boolean } = {}): { fn?: CompiledMapping; path: EnginePath } {
  let root: Fn;
  let builtinNames: string[];
  let slots: Slots;
  let generated: boolean;
  try {
    ({ root, builtinNames, slots, generated } = compileRoot(expression.ast(), options));
  } catch (err) {
    if (err instanceof Unsupported) return { path: { engine: 'interpreter', reason: `uses ${err.message}` } };
    throw err;
  }
  // Whether the bindings shadow a built-in the mapping calls, for the bindings object last seen: callers pass
  // their mapping set's own object on nearly every evaluation.
  let lastBindings: Record<string, unknown> | undefined;
  let lastShadowed = false;
  const fn: CompiledMapping = (input, bindings, limits) => {
    budget.depth = 0;
    budget.ticks = 0;
    budget.nextCheck = 1024;
    budget.maxDepth = limits.maxDepth;
    budget.maxMs = limits.maxMs;
    budget.cpuStart = -1;
    if (bindings !== lastBindings) {
      lastShadowed = builtinNames.some((name) => Object.hasOwn(bindings, name));
      lastBindings = bindings;
    }
    shadowed.builtins = lastShadowed;
    focus.environment.timestamp = new Date();
    const env = new Scope(undefined, bindings, slots);
    env.set(INPUT_SLOT, input);
    // As jsonata: a JSON array input is one value, wrapped so paths do not map over it.
    let value: any = input;
    if (Array.isArray(input) && (input as any).sequence !== true) {
      value = seq(input);
      value.outerWrapper = true;
    }
    return root(value, env);
  };
  return { fn, path: { engine: 'compiled', generated } };
}
