// jsonata 2.x evaluates an object constructor's values, and an array constructor's items, concurrently: each is an
// async evaluation started in source order and awaited together (Promise.all). When two of them fail, the error it
// raises is the first rejection in time, that is the one whose evaluation reaches its throw through fewer awaits
// (microtask turns): `{'a': $substring(n, 0, 1), 'b': list > 1}` raises b's T2010 before a's T0410, whatever the
// keys' order, because a function call with three arguments awaits more often than a comparison. The compiled code
// evaluates them one after the other and meets a's error first. Mirroring jsonata's choice would mean counting its
// awaits at every node, on the path every successful evaluation takes too; so only a failure pays: the constructor
// goes on evaluating the values after the failed one, and when they fail with different errors it leaves the
// choice to the interpreter (ConcurrentErrors), which MappingSet.evaluate asks after any failure anyway. A single
// failing value, or failures that all have the same code, are unambiguous and thrown as they are.
import { BudgetExceeded, budget, NeedsInterpreter } from './runtime';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** Values of one constructor failed with different errors: which one jsonata raises depends on its awaits. */
export class ConcurrentErrors extends NeedsInterpreter {
  constructor(public readonly errors: readonly unknown[]) {
    super(`values evaluated concurrently failed with different errors (${[...new Set(errors.map(describeError))].join(', ')})`);
    this.name = 'ConcurrentErrors';
  }
}

/** An error as the differential test compares it: its jsonata code, or the message of a built-in's or binding's Error. */
export function describeError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  return typeof e?.code === 'string' ? e.code : String(e?.message ?? err);
}

/** A mapping's own failure (a jsonata error or an Error out of a built-in or binding), not a budget or fallback signal. */
const isMappingFailure = (err: unknown): boolean =>
  !(err instanceof BudgetExceeded) && !(err instanceof NeedsInterpreter) &&
  ((typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string') || err instanceof Error);

/**
 * The error a constructor throws after its value `failed` (of `count`) threw `first`: the values after it evaluated
 * (`evaluate(i)`), each from the depth the constructor was entered at, and their failures gathered with the first.
 * The values before it succeeded. Called on the error path only; each value is evaluated once, so nested
 * constructors that fail do not multiply the work.
 */
export function concurrentFailure(first: unknown, depth: number, failed: number, count: number, evaluate: (i: number) => unknown): unknown {
  if (failed >= count - 1 || !(isMappingFailure(first) || first instanceof ConcurrentErrors)) return first;
  const errors: unknown[] = first instanceof ConcurrentErrors ? [...first.errors] : [first];
  for (let i = failed + 1; i < count; i++) {
    budget.depth = depth;
    try {
      evaluate(i);
    } catch (err) {
      if (err instanceof ConcurrentErrors) errors.push(...err.errors);
      else if (isMappingFailure(err)) errors.push(err);
      // jsonata raises a failure without waiting for the other values: one that runs out of budget or needs the
      // interpreter here may never have mattered there, so the interpreter answers.
      else return new NeedsInterpreter(`a value after a failed one stopped: ${describeError(err)}`);
    }
  }
  budget.depth = depth;
  const code = describeError(errors[0]);
  return errors.every((err) => describeError(err) === code) ? first : new ConcurrentErrors(errors);
}
