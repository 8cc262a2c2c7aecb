// Path expressions (`a.b[0].c`, `items#$i.{...}`), as jsonata 2.x's evaluatePath, evaluateStep and
// evaluateTupleStep: each step maps over the sequence the previous one produced, flattening arrays one level.
import { collapse, lookupOwn, seq, tick, type Fn, type Scope } from './runtime';
import { Unsupported } from './unsupported';
import { generatedNamePath } from './name-path';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = any;
type Compile = (n: Node) => Fn;

/** `collapsed`: the value is returned collapsed, as the node wrapper would (compileBare), without its sequences. */
export function compilePath(node: Node, compileNode: Compile, compileFilter: Compile, collapsed = false): Fn {
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
  const finish = collapsed
    ? (result: any) => collapse(pathResult(result, keepSingletonArray), false)
    : (result: any) => pathResult(result, keepSingletonArray);
  // An empty sequence collapses to undefined, keepSingleton or not.
  const nothing = (): any => (collapsed ? undefined : pathResult(seq(), keepSingletonArray));
  const general: Fn = (input, env) => {
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
        if (res === undefined) return nothing();
        if (Array.isArray(res) && !(res as any).cons) {
          if (i === steps.length - 1 && !(res as any).sequence) return finish(res);
          if (res.length !== 1) {
            if (res.length === 0) return nothing();
            inputSequence = seq(...res);
            i++;
            break;
          }
          res = res[0];
        }
        single = res;
      }
      if (inputSequence === undefined) {
        // A one-item sequence without keepSingleton collapses to its item.
        if (i === steps.length) return collapsed && !keepSingletonArray ? single : finish(seq(single));
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
    return finish(result);
  };
  if (!collapsed || keepSingletonArray || !plainNames(node.steps)) return general;
  // `a.b` starts from the context: the path's input is its first value (an array one goes to the general walk).
  const fromContext = node.steps[0].type === 'name';
  return namePath(fromContext ? (input) => input : steps[0].fn, node.steps.slice(fromContext ? 0 : 1).map((n: Node) => n.value), general);
}

/** `$var.a.b` or `a.b`: a variable or a name, then names alone (no predicates, stages, `#`, `[]`). */
export function plainNames(nodes: Node[]): boolean {
  const plain = (n: Node) => n.predicate === undefined && n.stages === undefined && !n.keepArray && !n.tuple && !n.consarray && n.index === undefined;
  if (!nodes.every(plain) || !nodes.slice(1).every((n) => n.type === 'name')) return false;
  return nodes[0].type === 'name' || (nodes[0].type === 'variable' && nodes.length > 1);
}

/**
 * What the general path gives for `$var.a.b` (or `a.b` from the context) while each step meets one object, without
 * its step records; at the first array it hands over to the general path, which reads the (side-effect free)
 * variable and names again.
 */
function namePath(first: Fn, keys: string[], general: Fn): Fn {
  const generated = generatedNamePath(first, keys, general);
  if (generated) return generated;
  return (input, env) => {
    let value = first(input, env);
    if (Array.isArray(value)) return general(input, env);
    for (let k = 0; k < keys.length && value !== undefined; k++) {
      value = lookupOwn(value, keys[k]);
      if (Array.isArray(value)) return general(input, env);
    }
    return value;
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
  tick(input.length);
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
  tick(inTuples.length);
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

export function frameFromTuple(env: Scope, tuple: any): Scope {
  const frame = env.child();
  for (const k of Object.keys(tuple)) frame.setNamed(k, tuple[k]);
  return frame;
}
