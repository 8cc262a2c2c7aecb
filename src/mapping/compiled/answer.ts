// A mapping's answer built as plain JSON where the expression itself builds it, instead of copied afterwards.
// Callers get what JSON.parse(JSON.stringify(v)) gives (toPlain): no sequences, undefined fields or functions. The
// objects and arrays a mapping's last expression constructs are new on every evaluation and referenced nowhere else,
// so they can be built plain in the first place; only the values they take from elsewhere (the input, a variable,
// a call) are copied, as toPlain copied everything. A variable is always copied: its object may appear twice in
// the answer (`$address` as the customer's and the card's), and each place must get its own copy.
import { budget, collapse, enter, toBoolean, type Fn, type Scope } from './runtime';
import { concurrentFailure } from './concurrent';
import { constantKeys } from './objects';
import { objectLiteralConstructor } from './object-literal';
import { toPlain, toPlainItem } from './plain';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = any;
type Compile = (n: Node) => Fn;

/** `(input, env) => toPlain(compileNode(node)(input, env))`, building what it can plain from the start. */
export function compileAnswer(node: Node, compileNode: Compile): Fn {
  const built = unwrapped(node) ? compileBuilt(node, compileNode) : undefined;
  if (built) return built;
  const value = compileNode(node);
  return (input, env) => toPlain(value(input, env));
}

/** Nodes compileNode evaluates without its wrapper's predicates, `[]` and group-by (blocks keep only its depth count). */
export const unwrapped = (node: Node): boolean => node.predicate === undefined && node.keepArray !== true && !node.group;

/**
 * Nodes whose value is never a sequence, so that collapsing it changes nothing: object and array constructors,
 * literals, and conditions choosing between these.
 */
export function neverSequence(node: Node): boolean {
  if (!unwrapped(node)) return false;
  switch (node.type) {
    case 'string': case 'number': case 'value': return true;
    case 'unary': return node.value === '{' || node.value === '[';
    case 'condition': return neverSequence(node.then) && (node.else === undefined || neverSequence(node.else));
    default: return false;
  }
}

/** toPlain(collapse(value)), as a block or condition collapses its value before the answer is copied. */
function compileCollapsedAnswer(node: Node, compileNode: Compile): Fn {
  if (neverSequence(node)) return compileAnswer(node, compileNode);
  const value = compileNode(node);
  return (input, env) => toPlain(collapse(value(input, env), false));
}

function compileBuilt(node: Node, compileNode: Compile): Fn | undefined {
  switch (node.type) {
    case 'unary': return node.value === '{' ? objectAnswer(node, compileNode) : node.value === '[' ? arrayAnswer(node, compileNode) : undefined;
    case 'condition': return conditionAnswer(node, compileNode);
    case 'block': return node.expressions.length > 0 ? blockAnswer(node, compileNode) : undefined;
    default: return undefined;
  }
}

/** `{'k': v, ...}` with constant keys over one input: each value's answer stored as the constructor stores the value. */
function objectAnswer(node: Node, compileNode: Compile): Fn | undefined {
  const keys = constantKeys(node);
  // A `toJSON` key would make JSON.stringify call its value: left to toPlain, which goes through JSON for it.
  if (keys === undefined || keys.includes('toJSON')) return undefined;
  const literal = objectLiteralConstructor(keys, node.lhs.map((pair: Node[]) => compileAnswer(pair[1], compileNode)));
  if (!literal) return undefined;
  // Over a list the constructor groups the items (its general path): copied as before.
  const general = compileNode(node);
  return (input, env) => (Array.isArray(input) ? toPlain(general(input, env)) : literal(input, env));
}

/** `[a, b, ...]`: each item appended (an array item flattened unless it is itself `[...]`), then each item made plain. */
function arrayAnswer(node: Node, compileNode: Compile): Fn {
  const items = node.expressions.map((item: Node) => {
    // An object constructor's value is always one object: appended as it is, so it can be built plain.
    if (item.type === 'unary' && item.value === '{' && unwrapped(item)) return { object: compileAnswer(item, compileNode) };
    return { value: compileNode(item), nested: item.value === '[' };
  });
  const evaluate = (item: (typeof items)[number], input: any, env: Scope): unknown => (item.object ? item.object(input, env) : item.value(input, env));
  return (input, env) => {
    const out: unknown[] = [];
    const depth = budget.depth;
    let at = 0;
    try {
      for (; at < items.length; at++) {
        const item = items[at];
        if (item.object) {
          out.push(item.object(input, env));
          continue;
        }
        const value = item.value(input, env);
        if (value === undefined) continue;
        if (Array.isArray(value) && !item.nested) for (let i = 0; i < value.length; i++) out.push(toPlainItem(value[i]));
        else out.push(toPlainItem(value));
      }
    } catch (err) {
      // jsonata evaluates the items concurrently: which failure it raises is settled in concurrent.ts.
      throw concurrentFailure(err, depth, at, items.length, (i) => evaluate(items[i], input, env));
    }
    return out;
  };
}

/** `c ? a : b`: the chosen branch's answer (compileCondition collapses the branch's value). */
function conditionAnswer(node: Node, compileNode: Compile): Fn {
  const cond = compileNode(node.condition);
  const then = compileCollapsedAnswer(node.then, compileNode);
  const otherwise = node.else === undefined ? undefined : compileCollapsedAnswer(node.else, compileNode);
  return (input, env) => (toBoolean(cond(input, env)) ? then(input, env) : otherwise ? otherwise(input, env) : undefined);
}

/** `( ...; last )`: as compileNode's block, with its depth count; the last expression's value is the answer. */
function blockAnswer(node: Node, compileNode: Compile): Fn {
  const exprs: Fn[] = node.expressions.slice(0, -1).map(compileNode);
  const last = compileCollapsedAnswer(node.expressions[node.expressions.length - 1], compileNode);
  return (input, env) => {
    enter();
    const frame = env.child();
    for (const e of exprs) e(input, frame);
    const answer = last(input, frame);
    budget.depth--;
    return answer;
  };
}
