// Object constructors, as jsonata 2.x's evaluateGroupExpression (without tuple streams, which stay on the
// interpreter): keys per input item, then each value over the items grouped under its key.
import { append, budget, jerr, NeedsInterpreter, seq, type Fn } from './runtime';
import { objectLiteralConstructor } from './object-literal';
import { concurrentFailure } from './concurrent';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = any;

/** evaluateGroupExpression without tuple streams: keys per input item, then each value over its group. */
export function compileGroup(node: Node, compileNode: (n: Node) => Fn): Fn {
  const pairs = node.lhs.map((pair: Node[]) => [compileNode(pair[0]), compileNode(pair[1])] as [Fn, Fn]);
  const literalKeys = constantKeys(node);
  const fast = literalKeys !== undefined;
  const literal = fast ? objectLiteralConstructor(literalKeys!, pairs.map((pair: [Fn, Fn]) => pair[1])) : undefined;
  return (input, env) => {
    if (fast && !Array.isArray(input)) {
      if (literal) return literal(input, env);
      const result: Record<string, unknown> = {};
      const depth = budget.depth;
      let p = 0;
      try {
        for (; p < pairs.length; p++) {
          const value = pairs[p][1](input, env);
          if (value !== undefined) result[literalKeys![p]] = value;
        }
      } catch (err) {
        // jsonata evaluates the values concurrently: which failure it raises is settled in concurrent.ts.
        throw concurrentFailure(err, depth, p, pairs.length, (i) => pairs[i][1](input, env));
      }
      return result;
    }
    if (input && input.tupleStream) throw new NeedsInterpreter('object constructor over a tuple stream');
    const result = Object.create(null);
    const groups: Record<string, { data: any; exprIndex: number }> = Object.create(null);
    const list = Array.isArray(input) ? input : seq(input);
    if (list.length === 0) list.push(undefined);
    for (const item of list) {
      for (let p = 0; p < pairs.length; p++) {
        const key = pairs[p][0](item, env);
        if (typeof key !== 'string' && key !== undefined) throw jerr('T1003', { value: key });
        if (key === undefined) continue;
        if (key === '_jsonata_lambda' || key === '_jsonata_function') throw jerr('D1013', { value: key });
        const existing = groups[key];
        if (existing) {
          if (existing.exprIndex !== p) throw jerr('D1009', { value: key });
          existing.data = append(existing.data, item);
        } else groups[key] = { data: item, exprIndex: p };
      }
    }
    const keys = Object.keys(groups);
    const valueOf = (k: number): unknown => pairs[groups[keys[k]].exprIndex][1](groups[keys[k]].data, env);
    const depth = budget.depth;
    let k = 0;
    try {
      for (; k < keys.length; k++) {
        const value = valueOf(k);
        if (value !== undefined) result[keys[k]] = value;
      }
    } catch (err) {
      throw concurrentFailure(err, depth, k, keys.length, valueOf);
    }
    return result;
  };
}

/**
 * The keys of what mappings write nearly always: `{'key': value, ...}` with distinct literal keys. Built over one
 * input (not a list to group), each key has one group, the input itself, and jsonata's grouping comes down to
 * evaluating the values in key order into a plain object. Undefined when a key is not a literal, repeats (D1009
 * on the general path) or is one the general path treats apart (__proto__, jsonata's reserved names).
 */
export function constantKeys(node: Node): string[] | undefined {
  if (!node.lhs.every((pair: Node[]) => pair[0].type === 'string' && !pair[0].predicate && !pair[0].keepArray)) return undefined;
  const keys: string[] = node.lhs.map((pair: Node[]) => pair[0].value);
  if (new Set(keys).size !== keys.length) return undefined;
  return keys.some((k) => k === '__proto__' || k === '_jsonata_lambda' || k === '_jsonata_function') ? undefined : keys;
}
