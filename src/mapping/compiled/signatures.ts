// jsonata checks a built-in's arguments against its signature (`<s-nn?:s>`) on every call: it spells the
// arguments' types as a string, matches it against a regex made from the signature, then walks the match to
// build the arguments it passes. When every argument's type is one its parameter accepts, in order, and the
// parameters left out are optional without a context default, that match is each argument as it is (the regex
// takes each optional group greedily before trying it empty), so the arguments pass unchanged. This reads the
// same signature and answers that case alone (a typed array included when every item has the type); anything else
// (a wrong type, a context default, an array to wrap, an item of another type) goes to jsonata's own validation.

/* eslint-disable @typescript-eslint/no-explicit-any */

interface Param {
  accepts: string;
  optional: boolean;
  context: boolean;
  array: boolean;
  /** `<...>` after `a` or `f`: the type of an array's items or a function's signature; '' for none. */
  subtype: string;
}

/** The arguments as jsonata's validation would pass them, or undefined when only that validation can tell. */
export type QuickCheck = (args: any[]) => any[] | undefined;

/** jsonata's parseSignature, keeping only what decides the plain case; undefined for a signature with `+`. */
export function quickCheck(definition: string): QuickCheck | undefined {
  const params = parse(definition);
  if (!params) return undefined;
  return (args) => {
    if (args.length > params.length) return undefined;
    for (let i = 0; i < args.length; i++) {
      const p = params[i];
      const type = symbol(args[i]);
      if (p.accepts.indexOf(type) === -1) return undefined;
      // jsonata wraps a non-array into one (and refuses it for a typed array when it is not of the items' type).
      if (p.array && type !== 'a' && type !== 'm') return undefined;
      // A typed array (`a<s>`: $join, $sum, $merge) passes as it is when every item is of the type (jsonata compares
      // the first letter of the type with each item's, no deeper); a function's signature is left to jsonata.
      if (p.subtype !== '' && type !== 'm' && !(p.array && itemsAre(args[i], p.subtype.charAt(0)))) return undefined;
    }
    for (let i = args.length; i < params.length; i++) if (!params[i].optional || params[i].context) return undefined;
    // jsonata passes one argument per parameter, undefined for those left out.
    while (args.length < params.length) args.push(undefined);
    return args;
  };
}

const ACCEPTS: Record<string, string> = { s: 'sm', n: 'nm', b: 'bm', l: 'lm', o: 'om', a: 'asnblfom', f: 'f', j: 'asnblom', x: 'asnblfom' };

function parse(definition: string): Param[] | undefined {
  const params: Param[] = [];
  for (let at = 1; at < definition.length; at++) {
    const c = definition.charAt(at);
    const prev = params[params.length - 1];
    if (c === ':') break;
    if (ACCEPTS[c] !== undefined) params.push({ accepts: ACCEPTS[c], optional: false, context: false, array: c === 'a', subtype: '' });
    else if (c === '-') {
      prev.context = true;
      prev.optional = true;
    } else if (c === '?') prev.optional = true;
    else if (c === '(') {
      const end = definition.indexOf(')', at);
      params.push({ accepts: `${definition.slice(at + 1, end)}m`, optional: false, context: false, array: false, subtype: '' });
      at = end;
    } else if (c === '<') {
      const end = closing(definition, at);
      prev.subtype = definition.slice(at + 1, end);
      at = end;
    } else if (c !== '>') return undefined;
  }
  return params;
}

/** The `>` that closes the `<` at `at`. */
function closing(s: string, at: number): number {
  for (let depth = 0, i = at; i < s.length; i++) {
    if (s[i] === '<') depth++;
    else if (s[i] === '>' && --depth === 0) return i;
  }
  return s.length;
}

function itemsAre(array: any[], type: string): boolean {
  for (let i = 0; i < array.length; i++) if (symbol(array[i]) !== type) return false;
  return true;
}

/** jsonata's getSymbol: the type letter of a value, `m` for missing. */
function symbol(v: any): string {
  if ((v && (v._jsonata_function === true || v._jsonata_lambda === true)) || typeof v === 'function') return 'f';
  switch (typeof v) {
    case 'string': return 's';
    case 'number': return 'n';
    case 'boolean': return 'b';
    case 'object': return v === null ? 'l' : Array.isArray(v) ? 'a' : 'o';
    default: return 'm';
  }
}
