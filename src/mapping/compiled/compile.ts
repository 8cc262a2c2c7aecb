// JSONata AST -> a tree of synchronous JS closures. Each case mirrors the function of the same name in jsonata 2.x's
// evaluator (evaluatePath, evaluateStep, evaluateFilter, evaluateGroupExpression...) minus the `await`s: jsonata
// evaluates every node through an async function, so a mapping of a few hundred nodes allocates a few hundred
// promises per call; these closures allocate none. A node outside the supported subset throws Unsupported at
// compile time and the whole mapping stays on the interpreter (a sync function cannot await an async fallback).
import {
  append, ASYNC_BUILTINS, budget, collapse, enter, isArrayOfNumbers, isFunction, isNumeric, jerr,
  lookup, seq, toBoolean, type Fn, type Scope,
} from './runtime';
import { compileBinary } from './operators';
import { compileFunction, compileLambda } from './calls';
import { compileGroup } from './objects';

/* eslint-disable @typescript-eslint/no-explicit-any */
export { Unsupported } from './unsupported';
import { Unsupported } from './unsupported';

type Node = any;

/** Compile one AST node, with the post-processing jsonata's evaluate() applies to every node. */
export function compileNode(node: Node): Fn {
  const core = compileCore(node);
  const predicates: Fn[] | undefined = node.predicate?.map((p: Node) => compileFilter(p.expr));
  const keepArray = node.keepArray === true;
  if (node.type !== 'path' && node.group) throw new Unsupported('group-by on a non-path');
  return (input, env) => {
    enter();
    let result = core(input, env);
    if (predicates) for (const p of predicates) result = p(result, env);
    budget.depth--;
    return collapse(result, keepArray);
  };
}

function compileCore(node: Node): Fn {
  switch (node.type) {
    case 'path': return compilePath(node);
    case 'binary': return compileBinary(node, compileNode);
    case 'unary': return compileUnary(node);
    case 'name': { const key = node.value; return (input) => lookup(input, key); }
    case 'string': case 'number': case 'value': { const v = node.value; return () => v; }
    case 'wildcard': return compileWildcard();
    case 'condition': {
      const cond = compileNode(node.condition);
      const then = compileNode(node.then);
      const otherwise = node.else === undefined ? undefined : compileNode(node.else);
      return (input, env) => (toBoolean(cond(input, env)) ? then(input, env) : otherwise ? otherwise(input, env) : undefined);
    }
    case 'block': {
      const exprs: Fn[] = node.expressions.map(compileNode);
      return (input, env) => {
        const frame = env.child();
        let result;
        for (const e of exprs) result = e(input, frame);
        return result;
      };
    }
    case 'bind': {
      const name = node.lhs.value;
      const rhs = compileNode(node.rhs);
      return (input, env) => env.set(name, rhs(input, env));
    }
    case 'regex': return compileRegex(node);
    case 'variable': {
      const name = node.value;
      if (ASYNC_BUILTINS.has(name)) throw new Unsupported(`$${name}`);
      if (name === '') return (input) => (input && input.outerWrapper ? input[0] : input);
      return (_input, env) => env.get(name);
    }
    case 'function': return compileFunction(node, compileNode);
    case 'lambda': return compileLambda(node, compileNode);
    default: throw new Unsupported(`${node.type} expressions`);
  }
}

function compilePath(node: Node): Fn {
  if (node.tuple || node.group) throw new Unsupported('path with ancestry or group-by');
  const steps = node.steps.map((step: Node) => {
    if (step.type === 'sort' || step.focus || step.ancestor) throw new Unsupported('sort, focus or ancestor steps');
    return { fn: compileNode(step), tuple: step.tuple === true, index: step.index as string | undefined, consarray: step.consarray === true, stages: (step.stages ?? []).map((s: Node) => {
      if (s.type !== 'filter') throw new Unsupported(`${s.type} stage`);
      return compileFilter(s.expr);
    }) as Fn[] };
  });
  const absolute = node.steps[0].type === 'variable';
  const keepSingletonArray = node.keepSingletonArray === true;
  return (input, env) => {
    let i = 0;
    let inputSequence: any;
    if (Array.isArray(input) && !absolute) inputSequence = input;
    else {
      // While each step's input is one value (a path into one object, the usual case), the step is evaluated on it
      // directly: what evaluateStep gives for a one-item sequence, without building a sequence at every step.
      let single = input;
      for (; i < steps.length; i++) {
        const step = steps[i];
        if (step.tuple || (i === 0 && step.consarray)) break;
        let res = step.fn(single, env);
        for (const stage of step.stages) res = stage(res, env);
        if (res === undefined) return pathResult(seq(), keepSingletonArray);
        if (Array.isArray(res) && !(res as any).cons) {
          if (i === steps.length - 1 && !(res as any).sequence) return pathResult(res, keepSingletonArray);
          if (res.length !== 1) {
            if (res.length === 0) return pathResult(seq(), keepSingletonArray);
            inputSequence = seq(...res);
            i++;
            break;
          }
          res = res[0];
        }
        single = res;
      }
      if (inputSequence === undefined) {
        if (i === steps.length) return pathResult(seq(single), keepSingletonArray);
        inputSequence = seq(single);
      }
    }
    let result: any = inputSequence;
    let tuples: any[] | undefined;
    for (; i < steps.length; i++) {
      const step = steps[i];
      if (step.tuple || tuples) {
        tuples = tupleStep(step, inputSequence, tuples, env);
        continue;
      }
      result = i === 0 && step.consarray ? step.fn(inputSequence, env) : evaluateStep(step, inputSequence, env, i === steps.length - 1);
      if (result === undefined || result.length === 0) break;
      inputSequence = result;
    }
    if (tuples) {
      result = seq();
      for (const t of tuples) result.push(t['@']);
    }
    return pathResult(result, keepSingletonArray);
  };
}

function pathResult(result: any, keepSingletonArray: boolean): any {
  if (keepSingletonArray) {
    if (Array.isArray(result) && (result as any).cons && !(result as any).sequence) result = seq(result);
    result.keepSingleton = true;
  }
  return result;
}

interface Step { fn: Fn; stages: Fn[]; index?: string }

function evaluateStep(step: Step, input: any[], env: Scope, lastStep: boolean): any {
  if (input.length === 1) {
    // Most steps of a mapping's paths walk one object (`charge.customer.address`): the same result as below
    // without the intermediate list.
    let res = step.fn(input[0], env);
    for (const stage of step.stages) res = stage(res, env);
    const out = seq();
    if (res === undefined) return out;
    if (Array.isArray(res)) {
      if (lastStep && !(res as any).sequence) return res;
      if (!(res as any).cons) {
        for (const v of res) out.push(v);
        return out;
      }
    }
    out.push(res);
    return out;
  }
  const results: any = [];
  for (let i = 0; i < input.length; i++) {
    let res = step.fn(input[i], env);
    for (const stage of step.stages) res = stage(res, env);
    if (res !== undefined) results.push(res);
  }
  if (lastStep && results.length === 1 && Array.isArray(results[0]) && !(results[0] as any).sequence) return results[0];
  const out = seq();
  for (const res of results) {
    if (!Array.isArray(res) || (res as any).cons) out.push(res);
    else for (const v of res) out.push(v);
  }
  return out;
}

/** evaluateTupleStep for `#$i` positional bindings: each tuple carries '@' (the item) and the index variables. */
function tupleStep(step: Step, input: any[], tuples: any[] | undefined, env: Scope): any[] {
  const result: any = seq();
  result.tupleStream = true;
  const inTuples = tuples ?? input.map((item) => ({ '@': item }));
  for (const t of inTuples) {
    const res0 = step.fn(t['@'], frameFromTuple(env, t));
    if (res0 === undefined) continue;
    const res = Array.isArray(res0) ? res0 : [res0];
    for (let b = 0; b < res.length; b++) {
      const tuple: any = Object.assign(Object.create(null), t);
      if ((res as any).tupleStream) Object.assign(tuple, res[b]);
      else {
        tuple['@'] = res[b];
        if (step.index) tuple[step.index] = b;
      }
      result.push(tuple);
    }
  }
  let out = result;
  for (const stage of step.stages) out = stage(out, env);
  return out;
}

function frameFromTuple(env: Scope, tuple: any): Scope {
  const frame = env.child();
  for (const k of Object.keys(tuple)) frame.set(k, tuple[k]);
  return frame;
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
      for (const item of items) {
        const value = item.fn(input, env);
        if (value === undefined) continue;
        if (item.nested) result.push(value);
        else result = append(result, value);
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
