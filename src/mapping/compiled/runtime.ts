// The runtime of compiled mappings: jsonata's own value model (sequences, singleton collapsing, its truthiness,
// equality and string rules) in synchronous form. Built-in functions are jsonata's own implementations, taken
// from its static frame, so $substring, $string, $fromMillis... behave exactly as in the interpreter; only the
// built-ins jsonata implements as `async` (because a matcher or callback could be async) get synchronous ports
// here, line for line from jsonata 2.x.
import jsonata from 'jsonata';
import { UNBOUND, type Slots } from './slots';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Frame = Record<string, any>;
export type Fn = (input: any, env: Scope) => any;

/**
 * The variables an expression sees: its block's or lambda's own, then the enclosing scopes', then the evaluation's
 * bindings, then jsonata's built-ins. Each frame is an array of the expression's slots (slots.ts) rather than
 * objects chained by prototype (a prototype chain made afresh for every evaluation defeats V8's property caches,
 * and assigning to an object that is another's prototype is one of its slowest operations) or a Map per frame
 * (a hash of the name in every frame walked).
 */
export class Scope {
  private readonly vars: unknown[];

  constructor(private readonly parent: Scope | undefined, private readonly bindings: Frame, private readonly slots: Slots) {
    this.vars = slots.empty.slice();
  }

  child(): Scope {
    return new Scope(this, this.bindings, this.slots);
  }

  /** A name the expression binds, by its slot; where no frame holds it, the bindings' or the built-in's. */
  get(slot: number, name: string): any {
    for (let s: Scope | undefined = this; s !== undefined; s = s.parent) {
      const v = s.vars[slot];
      if (v !== UNBOUND) return v;
    }
    return this.global(name);
  }

  /** A name no frame can hold (the expression never binds it): the evaluation's bindings, then the built-ins. */
  global(name: string): any {
    return Object.hasOwn(this.bindings, name) ? this.bindings[name] : builtins[name];
  }

  set(slot: number, value: any): any {
    this.vars[slot] = value;
    return value;
  }

  /**
   * A tuple's entries (`@` and `#$i` names, which all have slots): by name, as they are only known as the tuple's
   * keys. A key without a slot could not be read by any variable of the expression.
   */
  setNamed(name: string, value: any): void {
    const slot = this.slots.ids.get(name);
    if (slot !== undefined) this.vars[slot] = value;
  }
}

/** A jsonata-style error (plain object with a code); the loader re-runs the interpreter to get its exact message. */
export interface JsonataError { code: string; value?: unknown; position?: number; token?: string; message?: string }
export const jerr = (code: string, extra: Partial<JsonataError> = {}): JsonataError => ({ code, ...extra });

/** Evaluation stopped by its budget: not a mapping answer, so the interpreter is not asked again. */
export class BudgetExceeded extends Error {
  constructor(public readonly what: 'depth' | 'time', public readonly limit: number) {
    super(what === 'depth' ? `nested deeper than ${limit} evaluations (runaway recursion?)` : `ran longer than ${limit} ms (runaway loop?)`);
    this.name = 'BudgetExceeded';
  }
}

/** The compiled code met a value it cannot handle synchronously (an async function passed as a binding). */
export class NeedsInterpreter extends Error {}

/** Budget of one evaluation. Evaluation is synchronous and never re-entered, so one module-level counter serves. */
export const budget = { depth: 0, maxDepth: 0, ticks: 0, nextCheck: 1024, maxMs: 0, cpuStart: -1 };

/**
 * Whether this evaluation's bindings name a built-in the expression reads: then its `$name`s resolved at compile
 * time (builtinFor) are looked up in the scope as the interpreter does, where the binding wins.
 */
export const shadowed = { builtins: false };

/**
 * The time budget counts the CPU time the evaluation ran, not the clock: on a loaded host, or in a container held
 * to its CPU quota, a process waits for a core for tens of milliseconds at a time, and a 20 ms mapping measured by
 * the clock then "ran longer than 100 ms" (start-up's fixture check refused to start, and a charge would fail). The
 * process's CPU time is read every 1024 ticks (nodes entered, items a path step or filter walks), from the first thousand on (their own time, well under a
 * millisecond, is not counted): a charge's mappings evaluate a few hundred nodes and never read it.
 */
export function enter(): void {
  if (++budget.depth > budget.maxDepth) throw new BudgetExceeded('depth', budget.maxDepth);
  if (++budget.ticks >= budget.nextCheck) checkTime();
}

/** A lambda call, counted as deep as its body nests (compileLambda). */
export function enterBy(weight: number): void {
  if ((budget.depth += weight) > budget.maxDepth) throw new BudgetExceeded('depth', budget.maxDepth);
}

/** n units of work done without entering a node (a path step's or a filter's items, whose leaves are not counted). */
export function tick(n: number): void {
  budget.ticks += n;
  if (budget.ticks >= budget.nextCheck) checkTime();
}

function checkTime(): void {
  budget.nextCheck = (budget.ticks | 1023) + 1;
  const { user, system } = process.cpuUsage();
  if (budget.cpuStart < 0) budget.cpuStart = user + system;
  else if (user + system - budget.cpuStart > budget.maxMs * 1000) throw new BudgetExceeded('time', budget.maxMs);
}

export function seq(...items: any[]): any {
  const s: any = items;
  s.sequence = true;
  return s;
}
export const isSequence = (v: any): boolean => Array.isArray(v) && (v as any).sequence === true;
export const isNumeric = (n: any): boolean => typeof n === 'number' && !isNaN(n) && isFinite(n);
export const isArrayOfNumbers = (a: any): boolean => Array.isArray(a) && a.every((x) => typeof x === 'number');
export const isFunction = (a: any): boolean => (a && (a._jsonata_function === true || a._jsonata_lambda === true)) || typeof a === 'function';

/** Marks a compiled lambda: a plain JS function taking an argument array. */
export const LAMBDA = Symbol('routegate.lambda');

export function isDeepEqual(lhs: any, rhs: any): boolean {
  if (lhs === rhs) return true;
  if (typeof lhs === 'object' && typeof rhs === 'object' && lhs !== null && rhs !== null) {
    if (Array.isArray(lhs) && Array.isArray(rhs)) {
      if (lhs.length !== rhs.length) return false;
      for (let i = 0; i < lhs.length; i++) if (!isDeepEqual(lhs[i], rhs[i])) return false;
      return true;
    }
    const lk = Object.getOwnPropertyNames(lhs).sort();
    const rk = Object.getOwnPropertyNames(rhs).sort();
    if (lk.length !== rk.length) return false;
    for (let i = 0; i < lk.length; i++) if (lk[i] !== rk[i]) return false;
    for (const k of lk) if (!isDeepEqual(lhs[k], rhs[k])) return false;
    return true;
  }
  return false;
}

/** What jsonata's evaluate() does to every node's result: empty sequence -> undefined, singleton -> its item. */
export function collapse(result: any, keepArray: boolean): any {
  if (result && result.sequence === true && !result.tupleStream && Array.isArray(result)) {
    const r: any = result;
    if (keepArray) r.keepSingleton = true;
    if (r.length === 0) return undefined;
    if (r.length === 1) return r.keepSingleton ? r : r[0];
  }
  return result;
}

interface NativeFunction { _jsonata_function: true; implementation: (...args: any[]) => any; signature?: { validate(args: any[], context: any): any[] } }

/** jsonata's static frame, read synchronously through its evaluate-entry hook (called before the first await). */
function readStaticFrame(): Frame {
  const probe = jsonata('0');
  let frame: Frame | undefined;
  (probe as any).assign(Symbol.for('jsonata.__evaluate_entry'), (_e: unknown, _i: unknown, env: { lookup(n: string): unknown }) => {
    frame = Object.create(null);
    for (const name of [...BUILTIN_NAMES, 'now', 'millis']) frame![name] = env.lookup(name);
  });
  probe.evaluate({}).catch(() => undefined);
  if (!frame) throw new Error('jsonata internals changed: built-in functions could not be read');
  return frame;
}

const BUILTIN_NAMES = [
  'sum', 'count', 'max', 'min', 'average', 'string', 'substring', 'substringBefore', 'substringAfter', 'lowercase', 'uppercase',
  'length', 'trim', 'pad', 'match', 'contains', 'replace', 'split', 'join', 'formatNumber', 'formatBase', 'formatInteger',
  'parseInteger', 'number', 'floor', 'ceil', 'round', 'abs', 'sqrt', 'power', 'boolean', 'not', 'map', 'filter', 'keys',
  'lookup', 'append', 'exists', 'spread', 'merge', 'reverse', 'each', 'sift', 'error', 'assert', 'type', 'sort', 'distinct',
  'base64encode', 'base64decode', 'encodeUrlComponent', 'encodeUrl', 'decodeUrlComponent', 'decodeUrl', 'fromMillis', 'toMillis',
];

export const builtins: Frame = readStaticFrame();
const impl = (name: string) => (builtins[name] as NativeFunction).implementation;

/** `this` for jsonata's built-ins: sequences and (for $toMillis without a date part) the evaluation's timestamp. */
export const focus: any = { createSequence: (...a: any[]) => seq(...a), environment: { timestamp: new Date() }, input: undefined };

// $now and $millis read the timestamp fixed at the start of each evaluation, as jsonata's do (theirs close over
// the probe's own clock, so they are rebuilt here around focus.environment.timestamp).
const fromMillisImpl = impl('fromMillis');
builtins.now = { ...builtins.now, implementation: (picture: any, tz: any) => fromMillisImpl.call(focus, focus.environment.timestamp.getTime(), picture, tz) };
builtins.millis = { ...builtins.millis, implementation: () => focus.environment.timestamp.getTime() };
// $fromMillis(ms) with neither picture nor timezone is jsonata's ISO 8601 picture at UTC, which for the years 0 to
// 9999 is what toISOString() writes; jsonata rebuilds it component by component (a webhook mapping calls it on
// every event). Anything else goes to jsonata's own.
builtins.fromMillis = {
  ...builtins.fromMillis,
  implementation(this: unknown, millis: any, picture: any, timezone: any) {
    if (picture === undefined && timezone === undefined && typeof millis === 'number') {
      const date = new Date(millis);
      const year = date.getUTCFullYear();
      if (year >= 0 && year <= 9999) return date.toISOString();
    }
    return fromMillisImpl.call(this, millis, picture, timezone);
  },
};

const lookupImpl = impl('lookup');
const booleanImpl = impl('boolean');
const stringImpl = impl('string');
const appendImpl = impl('append');
export const lookup = (input: any, key: string): any => lookupImpl.call(focus, input, key);

/**
 * collapse(lookup(input, key)) for any input but an array: an object's own property (collapsed only when it is a
 * sequence), undefined for anything else.
 */
export function lookupOwn(input: any, key: string): any {
  if (input === null || typeof input !== 'object' || !Object.prototype.hasOwnProperty.call(input, key) || isFunction(input)) return undefined;
  const v = input[key];
  return Array.isArray(v) && (v as any).sequence === true ? collapse(v, false) : v;
}

export const toBoolean = (v: any): any => booleanImpl.call(focus, v);
export const toStr = (v: any): string => stringImpl.call(focus, v);
export const append = (a: any, b: any): any => appendImpl.call(focus, a, b);

// ---- synchronous ports of jsonata's async built-ins ----

type Matcher = (str: string, from?: number) => any;
function matcher(m: Matcher, str?: string): any {
  const result = m(str as string);
  if (result && typeof result.then === 'function') throw new NeedsInterpreter('async matcher');
  if (result && !(typeof result.start === 'number' || Array.isArray(result.groups) || isFunction(result.next))) throw jerr('T1010');
  return result;
}

function contains(str: any, token: any) {
  if (str === undefined || token === undefined) return undefined;
  return typeof token === 'string' ? str.indexOf(token) !== -1 : matcher(token, str) !== undefined;
}

function match(str: any, regex: any, limit: any) {
  if (str === undefined) return undefined;
  if (limit < 0) throw jerr('D3040', { value: limit });
  const result = seq();
  if (limit === undefined || limit > 0) {
    let count = 0;
    let m = matcher(regex, str);
    while (m !== undefined && (limit === undefined || count < limit)) {
      result.push({ match: m.match, index: m.start, groups: m.groups });
      m = matcher(m.next);
      count++;
    }
  }
  return result;
}

function split(str: any, separator: any, limit: any) {
  if (str === undefined) return undefined;
  if (limit < 0) throw jerr('D3020', { value: limit });
  let result: string[] = [];
  if (limit === undefined || limit > 0) {
    if (typeof separator === 'string') return str.split(separator, limit);
    let count = 0;
    let m = matcher(separator, str);
    if (m === undefined) return [str];
    let start = 0;
    while (m !== undefined && (limit === undefined || count < limit)) {
      result.push(str.substring(start, m.start));
      start = m.end;
      m = matcher(m.next);
      count++;
    }
    if (limit === undefined || count < limit) result.push(str.substring(start));
  } else result = [];
  return result;
}

/** $replace with a string pattern (the form the mappings use); a regex or function replacement goes to the interpreter. */
function replace(str: any, pattern: any, replacement: any, limit: any) {
  if (str === undefined) return undefined;
  if (pattern === '') throw jerr('D3010', { value: pattern });
  if (limit < 0) throw jerr('D3011', { value: limit });
  if (typeof pattern !== 'string' || typeof replacement !== 'string') throw new NeedsInterpreter('$replace with a regex or function');
  if (limit !== undefined && limit <= 0) return str;
  let result = '';
  let position = 0;
  let count = 0;
  let index = str.indexOf(pattern, position);
  while (index !== -1 && (limit === undefined || count < limit)) {
    result += str.substring(position, index) + replacement;
    position = index + pattern.length;
    count++;
    index = str.indexOf(pattern, position);
  }
  return result + str.substring(position);
}

const arity = (f: any): number => (typeof f.arity === 'number' ? f.arity : typeof f.implementation === 'function' ? f.implementation.length : f.length);
function hofArgs(f: any, a1: any, a2: any, a3: any): any[] {
  const n = arity(f);
  return n >= 3 ? [a1, a2, a3] : n >= 2 ? [a1, a2] : [a1];
}
const call = (f: any, args: any[]): any => {
  const r = f(...args);
  if (r && typeof r.then === 'function') throw new NeedsInterpreter('async callback');
  return r;
};

function each(obj: any, func: any) {
  const result = seq();
  for (const key of typeof obj === 'object' && obj !== null ? Object.keys(obj) : []) {
    const v = call(func, hofArgs(func, obj[key], key, obj));
    if (v !== undefined) result.push(v);
  }
  return result;
}

// jsonata's $sift: the object's entries the predicate keeps, or undefined when none is kept.
function sift(obj: any, func: any) {
  const result: Record<string, unknown> = {};
  for (const key of typeof obj === 'object' && obj !== null ? Object.keys(obj) : []) {
    if (toBoolean(call(func, hofArgs(func, obj[key], key, obj)))) result[key] = obj[key];
  }
  return Object.keys(result).length === 0 ? undefined : result;
}

function map(arr: any, func: any) {
  if (arr === undefined) return undefined;
  const result = seq();
  for (let i = 0; i < arr.length; i++) {
    const v = call(func, hofArgs(func, arr[i], i, arr));
    if (v !== undefined) result.push(v);
  }
  return result;
}

function filter(arr: any, func: any) {
  if (arr === undefined) return undefined;
  const result = seq();
  for (let i = 0; i < arr.length; i++) if (toBoolean(call(func, hofArgs(func, arr[i], i, arr)))) result.push(arr[i]);
  return result;
}

function sort(arr: any, comparator: any) {
  if (arr === undefined) return undefined;
  if (arr.length <= 1) return arr;
  let comp: (a: any, b: any) => any;
  if (comparator === undefined) {
    const nums = isArrayOfNumbers(arr);
    if (!nums && !(Array.isArray(arr) && arr.every((x: any) => typeof x === 'string'))) throw jerr('D3070');
    comp = (a, b) => a > b;
  } else comp = (a, b) => call(comparator, [a, b]);
  // The same stable merge sort as jsonata's: a comparator answering true means "swap".
  const merge = (l: any[], r: any[]): any[] => {
    const out: any[] = [];
    let i = 0;
    let j = 0;
    while (i < l.length && j < r.length) out.push(comp(l[i], r[j]) ? r[j++] : l[i++]);
    return out.concat(l.slice(i), r.slice(j));
  };
  const msort = (a: any[]): any[] => (a.length <= 1 ? a : merge(msort(a.slice(0, a.length >> 1)), msort(a.slice(a.length >> 1))));
  return msort(arr);
}

/** Native implementation -> its synchronous replacement. Built-ins missing here and async in jsonata are refused at compile time. */
export const syncPorts = new Map<unknown, (...args: any[]) => any>([
  [impl('contains'), contains], [impl('match'), match], [impl('split'), split], [impl('replace'), replace],
  [impl('each'), each], [impl('sift'), sift], [impl('map'), map], [impl('filter'), filter], [impl('sort'), sort],
]);

/** Built-in names whose jsonata implementation is async and that have no port here. */
export const ASYNC_BUILTINS = new Set(['single', 'foldLeft', 'eval', 'zip', 'shuffle', 'clone']);
