// Variables by number instead of by name. At compile time every name an expression can bind ($x :=, a lambda's
// parameters, `#$i`, and the input as `$$`) gets a slot number; a frame is an array of those slots, UNBOUND until
// its block, lambda call or tuple binds them. A lookup reads one array index per frame instead of hashing the name
// into each frame's Map. A name the expression never binds is in no frame: it is read from the bindings directly.

/** An unbound slot: the frame does not hold the name (a slot bound to undefined does hold it, and shadows). */
export const UNBOUND: unique symbol = Symbol('unbound');

/** One compiled expression's slot numbers, and the frame every evaluation starts its frames from. */
export interface Slots {
  readonly ids: ReadonlyMap<string, number>;
  readonly empty: readonly unknown[];
}

/** The input, `$$`, bound at the root of every evaluation. */
export const INPUT_SLOT = 0;

/** `$` (the input) is slot 0 and a tuple's item, `@`, slot 1; then the bound names. */
export function slotsFor(boundNames: Iterable<string>): Slots {
  const ids = new Map<string, number>([['$', INPUT_SLOT], ['@', 1]]);
  for (const name of boundNames) if (!ids.has(name)) ids.set(name, ids.size);
  return { ids, empty: new Array(ids.size).fill(UNBOUND) };
}

/** The slots of the expression being compiled (compileRoot sets them around its compilation). */
let compiling: Slots | undefined;

export function compileWithSlots<T>(slots: Slots, compile: () => T): T {
  compiling = slots;
  try {
    return compile();
  } finally {
    compiling = undefined;
  }
}

/** The slot of a name the expression binds (or `$`); undefined for a name no frame can hold. */
export function slotOf(name: string): number | undefined {
  if (!compiling) throw new Error('slotOf called outside compileWithSlots');
  return compiling.ids.get(name);
}
