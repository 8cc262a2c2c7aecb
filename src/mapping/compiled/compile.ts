// JSONata AST -> a tree of synchronous JS closures. Each case mirrors the function of the same name in jsonata 2.x's
// evaluator (evaluatePath, evaluateStep, evaluateFilter, evaluateGroupExpression...) minus the `await`s: jsonata
// evaluates every node through an async function, so a mapping of a few hundred nodes allocates a few hundred
// promises per call; these closures allocate none. A node outside the supported subset throws Unsupported at
// compile time and the whole mapping stays on the interpreter (a sync function cannot await an async fallback).
import {
  append, ASYNC_BUILTINS, budget, builtins, collapse, enter, isArrayOfNumbers, isFunction, isNumeric, jerr,
  lookup, lookupOwn, seq, shadowed, tick, toBoolean, type Fn,
} from './runtime';
import { compileBinary } from './operators';
import { compileFunction, compileLambda } from './calls';
import { compileGroup } from './objects';
import { compileAnswer } from './answer';
import { concurrentFailure } from './concurrent';
import { compilePath, frameFromTuple } from './paths';
import { compileWithSlots, slotOf, slotsFor, type Slots } from './slots';
import { generateAnswer, type CodegenHooks } from './codegen';

/* eslint-disable @typescript-eslint/no-explicit-any */
export { Unsupported } from './unsupported';
import { Unsupported } from './unsupported';

type Node = any;

/**
 * The names the expression being compiled binds anywhere (`$x :=`, lambda parameters, `#$i`): a `$name` outside
 * this set can only be a binding or a built-in, so a built-in's value is known at compile time.
 */
let rebound: Set<string> = new Set();
/** The built-ins builtinFor resolved: a binding of one of these names must turn the resolution off (shadowed). */
let resolved: Set<string> = new Set();
/**
 * Each node's function, made once per expression: the answer's constructors (answer.ts) also need the plain
 * function of their subtrees, and compiling those again at every level of nesting made loading every mapping a
 * fifth slower. A node's function holds no state of its own, so one serves both.
 */
let compiledNodes = new Map<Node, Fn>();

/**
 * Compile a whole expression, whose function answers plain JSON: one generated function (codegen.ts) unless
 * `generate` is false or the platform forbids generating code, else compileAnswer's closures. The names it binds
 * are collected first, for builtinFor.
 */
export function compileRoot(ast: Node, options: { generate?: boolean } = {}): { root: Fn; builtinNames: string[]; slots: Slots; generated: boolean } {
  rebound = boundNames(ast);
  resolved = new Set();
  compiledNodes = new Map();
  const slots = slotsFor(rebound);
  try {
    // One generated function where the platform allows it, else the closures (both give the same answers).
    const generatedRoot = options.generate === false ? undefined : compileWithSlots(slots, () => generateAnswer(ast, CODEGEN_HOOKS));
    const root = generatedRoot ?? compileWithSlots(slots, () => compileAnswer(ast, compileNode));
    return { root, builtinNames: [...resolved], slots, generated: generatedRoot !== undefined };
  } finally {
    rebound = new Set();
    resolved = new Set();
    compiledNodes = new Map();
  }
}

/** Every name the AST binds. Any string `index` or `focus` counts (a step's `#$i` or `@$x`), and so does a lambda's parameter. */
function boundNames(ast: Node): Set<string> {
  const names = new Set<string>();
  const walk = (n: any): void => {
    if (Array.isArray(n)) {
      n.forEach(walk);
      return;
    }
    if (n === null || typeof n !== 'object' || n instanceof RegExp) return;
    if (n.type === 'bind' && n.lhs) names.add(n.lhs.value);
    if (n.type === 'lambda') for (const a of n.arguments ?? []) names.add(a.value);
    if (typeof n.index === 'string') names.add(n.index);
    if (typeof n.focus === 'string') names.add(n.focus);
    for (const key of Object.keys(n)) walk(n[key]);
  };
  walk(ast);
  return names;
}

/** The built-in `$name` reads when the expression never rebinds it (a binding of that name is checked per evaluation). */
export function builtinFor(node: Node): any {
  if (node.type !== 'variable' || node.predicate !== undefined || node.keepArray === true) return undefined;
  const name = node.value;
  if (name === '' || rebound.has(name) || !Object.hasOwn(builtins, name)) return undefined;
  resolved.add(name);
  return builtins[name];
}

/** Compile one AST node, with the post-processing jsonata's evaluate() applies to every node. */
export function compileNode(node: Node): Fn {
  let fn = compiledNodes.get(node);
  if (fn === undefined) {
    fn = compileUncached(node);
    compiledNodes.set(node, fn);
  }
  return fn;
}

function compileUncached(node: Node): Fn {
  if (node.type !== 'path' && node.group) throw new Unsupported('group-by on a non-path');
  const bare = node.predicate === undefined && node.keepArray !== true ? compileLeaf(node) ?? compileBare(node) : undefined;
  if (bare) return bare;
  const core = compileCore(node);
  const predicates: Fn[] | undefined = node.predicate?.map((p: Node) => compileFilter(p.expr));
  const keepArray = node.keepArray === true;
  return (input, env) => {
    enter();
    let result = core(input, env);
    if (predicates) for (const p of predicates) result = p(result, env);
    budget.depth--;
    return collapse(result, keepArray);
  };
}

/**
 * Literals, names and variables without predicates: the wrapper's work reduced to what can change their result.
 * They cannot recurse, so they are not counted against the depth budget; their ticks are counted by the node,
 * call or step that evaluates them.
 */
function compileLeaf(node: Node): Fn | undefined {
  switch (node.type) {
    // Not arrays, so collapse leaves them as they are.
    case 'string': case 'number': case 'value': { const v = node.value; return () => v; }
    case 'name': return compileName(node.value);
    case 'variable': {
      const name = node.value;
      if (name === '') return (input) => collapse(input && input.outerWrapper ? input[0] : input, false);
      if (ASYNC_BUILTINS.has(name)) return undefined;
      const builtin = builtinFor(node);
      // A built-in's name is one the expression never binds: a binding of that name is the only thing that can shadow it.
      if (builtin !== undefined) return (_input, env) => (shadowed.builtins ? collapseValue(env.global(name)) : builtin);
      const slot = slotOf(name);
      if (slot === undefined) return (_input, env) => collapseValue(env.global(name));
      return (_input, env) => collapseValue(env.get(slot, name));
    }
    default: return undefined;
  }
}

/**
 * Nodes evaluated without the wrapper: their value is never a sequence, so that collapse leaves it as it is, or
 * they collapse it themselves; and they cannot recurse by themselves. A recursion goes through a lambda call,
 * which counts as deep as its body nests (compileLambda), so the depth budget still stops it.
 */
function compileBare(node: Node): Fn | undefined {
  switch (node.type) {
    // Booleans, numbers, strings or undefined; `..` makes a sequence.
    case 'binary': return node.value === '..' ? undefined : compileBinary(node, compileNode);
    // A number, a plain array (append concatenates onto one) or an object.
    case 'unary': return compileUnary(node);
    // A function; a thunk is the call it wraps, whose value can be anything.
    case 'lambda': return node.thunk === true ? undefined : compileLambda(node, compileNode);
    case 'regex': return compileRegex(node);
    // These collapse their own value.
    case 'path': return compilePath(node, compileNode, compileFilter, true);
    case 'condition': return compileCondition(node, true);
    case 'bind': return compileBind(node, true);
    default: return undefined;
  }
}

/** collapse(lookup()): on one value (what a path step nearly always meets) lookupOwn, on an array jsonata's own lookup. */
function compileName(key: string): Fn {
  return (input) => {
    if (!Array.isArray(input)) return lookupOwn(input, key);
    return collapse(lookup(input, key), false);
  };
}

/** collapse(v, false) for a value that is not a sequence more often than not: one check before the call. */
const collapseValue = (v: any): any => (Array.isArray(v) && (v as any).sequence === true ? collapse(v, false) : v);

/** What the generated answer (codegen.ts) takes from this compiler: the closures of what it does not write itself. */
const CODEGEN_HOOKS: CodegenHooks = {
  compileNode: (n) => compileNode(n),
  compileAnswer: (n) => compileAnswer(n, compileNode),
  builtinFor: (n) => builtinFor(n),
  collapseValue,
  asyncBuiltins: ASYNC_BUILTINS,
};

function compileCore(node: Node): Fn {
  switch (node.type) {
    case 'path': return compilePath(node, compileNode, compileFilter);
    case 'binary': return compileBinary(node, compileNode);
    case 'unary': return compileUnary(node);
    case 'name': { const key = node.value; return (input) => lookup(input, key); }
    case 'string': case 'number': case 'value': { const v = node.value; return () => v; }
    case 'wildcard': return compileWildcard();
    case 'condition': return compileCondition(node, false);
    case 'block': {
      const exprs: Fn[] = node.expressions.map(compileNode);
      return (input, env) => {
        const frame = env.child();
        let result;
        for (const e of exprs) result = e(input, frame);
        return result;
      };
    }
    case 'bind': return compileBind(node, false);
    case 'regex': return compileRegex(node);
    case 'variable': {
      const name = node.value;
      if (ASYNC_BUILTINS.has(name)) throw new Unsupported(`$${name}`);
      if (name === '') return (input) => (input && input.outerWrapper ? input[0] : input);
      const slot = slotOf(name);
      if (slot === undefined) return (_input, env) => env.global(name);
      return (_input, env) => env.get(slot, name);
    }
    case 'function': return compileFunction(node, compileNode, builtinFor(node.procedure));
    case 'lambda': return compileLambda(node, compileNode);
    default: throw new Unsupported(`${node.type} expressions`);
  }
}

/** `collapsed`: the value collapsed as the node wrapper would (its branches' values are already collapsed once). */
function compileCondition(node: Node, collapsed: boolean): Fn {
  const cond = compileNode(node.condition);
  const then = compileNode(node.then);
  const otherwise = node.else === undefined ? undefined : compileNode(node.else);
  const branch: Fn = (input, env) => (toBoolean(cond(input, env)) ? then(input, env) : otherwise ? otherwise(input, env) : undefined);
  return collapsed ? (input, env) => collapseValue(branch(input, env)) : branch;
}

/** The variable gets the value as the right-hand side gave it; `collapsed` applies only to the node's own value. */
function compileBind(node: Node, collapsed: boolean): Fn {
  const slot = slotOf(node.lhs.value)!;
  const rhs = compileNode(node.rhs);
  if (!collapsed) return (input, env) => env.set(slot, rhs(input, env));
  return (input, env) => collapseValue(env.set(slot, rhs(input, env)));
}

/** evaluateFilter: a number selects by index, numbers by indexes, anything else keeps the items it is true for. */
function compileFilter(predicate: Node): Fn {
  if (predicate.type === 'number') {
    const at = Math.floor(predicate.value);
    return (input) => {
      let results: any = seq();
      if (input && input.tupleStream) results.tupleStream = true;
      const list = Array.isArray(input) ? input : seq(input);
      const item = list[at < 0 ? list.length + at : at];
      if (item !== undefined) {
        if (Array.isArray(item)) results = item;
        else results.push(item);
      }
      return results;
    };
  }
  const pred = compileNode(predicate);
  return (input, env) => {
    const results: any = seq();
    const tupleStream = input && input.tupleStream;
    if (tupleStream) results.tupleStream = true;
    const list = Array.isArray(input) ? input : seq(input);
    tick(list.length);
    for (let index = 0; index < list.length; index++) {
      const item = list[index];
      let res = tupleStream ? pred(item['@'], frameFromTuple(env, item)) : pred(item, env);
      if (isNumeric(res)) res = [res];
      if (isArrayOfNumbers(res)) {
        for (const n of res) {
          let ii = Math.floor(n);
          if (ii < 0) ii = list.length + ii;
          if (ii === index) results.push(item);
        }
      } else if (toBoolean(res)) results.push(item);
    }
    return results;
  };
}

function compileUnary(node: Node): Fn {
  if (node.value === '-') {
    const e = compileNode(node.expression);
    return (input, env) => {
      const v = e(input, env);
      if (v === undefined) return undefined;
      if (isNumeric(v)) return -v;
      throw jerr('D1002', { value: v });
    };
  }
  if (node.value === '[') {
    const items = node.expressions.map((item: Node) => ({ fn: compileNode(item), nested: item.value === '[' }));
    const cons = node.consarray === true;
    return (input, env) => {
      let result: any = [];
      const depth = budget.depth;
      let i = 0;
      try {
        for (; i < items.length; i++) {
          const item = items[i];
          const value = item.fn(input, env);
          if (value === undefined) continue;
          if (item.nested) result.push(value);
          else result = append(result, value);
        }
      } catch (err) {
        // jsonata evaluates the items concurrently: which failure it raises is settled in concurrent.ts.
        throw concurrentFailure(err, depth, i, items.length, (at) => items[at].fn(input, env));
      }
      if (cons) Object.defineProperty(result, 'cons', { enumerable: false, configurable: false, value: true });
      return result;
    };
  }
  if (node.value === '{') return compileGroup(node, compileNode);
  throw new Unsupported(`unary ${node.value}`);
}

function compileWildcard(): Fn {
  return (input) => {
    let results: any = seq();
    if (Array.isArray(input) && (input as any).outerWrapper && input.length > 0) input = input[0];
    if (input !== null && typeof input === 'object' && !isFunction(input)) {
      for (const key of Object.keys(input)) {
        const value = input[key];
        if (Array.isArray(value)) results = append(results, value.flat(Infinity));
        else results.push(value);
      }
    }
    return results;
  };
}

function compileRegex(node: Node): Fn {
  const source: RegExp = node.value;
  return () => {
    // A fresh RegExp per evaluation, as jsonata does: `next` relies on its lastIndex.
    const re = new RegExp(source);
    const closure = (str: string, fromIndex?: number): any => {
      re.lastIndex = fromIndex || 0;
      const m = re.exec(str);
      if (m === null) return undefined;
      return {
        match: m[0], start: m.index, end: m.index + m[0].length, groups: m.slice(1),
        next: () => {
          if (re.lastIndex >= str.length) return undefined;
          const next = closure(str, re.lastIndex);
          if (next && next.match === '') throw jerr('D1004', { value: source.source });
          return next;
        },
      };
    };
    return closure;
  };
}
