// Function calls and lambdas, as jsonata 2.x's evaluateFunction / apply / evaluateLambda: built-ins get their
// arguments checked against their signature and jsonata's `this`; functions passed as arguments are wrapped with
// an arity, as jsonata wraps them for its higher-order built-ins; bindings are called with the context as `this`.
import { budget, enterBy, focus, isFunction, jerr, LAMBDA, NeedsInterpreter, shadowed, syncPorts, type Fn, type Scope } from './runtime';
import { quickCheck } from './signatures';
import { slotOf } from './slots';
import { Unsupported } from './unsupported';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = any;
type Compile = (n: Node) => Fn;

/** `builtin`: the procedure's value when compile time knows it is a jsonata built-in (builtinFor). */
export function compileFunction(node: Node, compileNode: Compile, builtin?: any): Fn {
  if (node.procedure.type === 'path') throw new Unsupported('calling a path');
  const proc = compileNode(node.procedure);
  const args: Fn[] = node.arguments.map((a: Node) => {
    if (a.type === 'operator') throw new Unsupported('partial application');
    return compileNode(a);
  });
  const values = (input: any, env: Scope): any[] => {
    const out = new Array(args.length);
    for (let i = 0; i < args.length; i++) {
      const v = args[i](input, env);
      out[i] = isFunction(v) ? asCallable(v) : v;
    }
    return out;
  };
  const generic: Fn = (input, env) => {
    const f = proc(input, env);
    return apply(f, values(input, env), input);
  };
  if (!builtin || builtin._jsonata_function !== true) return generic;
  // apply() for this one built-in, its implementation and signature read once.
  const implementation = syncPorts.get(builtin.implementation) ?? builtin.implementation;
  const signature = builtin.signature;
  const quick = signature ? quickCheck(signature.definition) : undefined;
  return (input, env) => {
    if (shadowed.builtins) return generic(input, env);
    const args = values(input, env);
    const validated = signature ? (quick?.(args) ?? signature.validate(args, input)) : args;
    focus.input = input;
    return settled(implementation.apply(focus, validated));
  };
}

/** A function passed as an argument, as jsonata wraps it for higher-order built-ins: callable with an arity. */
export function asCallable(f: any): any {
  if (typeof f === 'function' && !f[LAMBDA]) return f;
  const wrapped: any = (...params: any[]) => apply(f, params, undefined);
  wrapped.arity = f[LAMBDA] ? f.arity : f.implementation.length;
  return wrapped;
}

export function apply(f: any, args: any[], input: any): any {
  if (f && f[LAMBDA]) return f(args);
  if (f && f._jsonata_function === true) {
    const validated = f.signature ? f.signature.validate(args, input) : args;
    const port = syncPorts.get(f.implementation);
    focus.input = input;
    return settled((port ?? f.implementation).apply(focus, validated));
  }
  if (typeof f === 'function') {
    const result = f.apply(input, args);
    if (result && typeof result.then === 'function') throw new NeedsInterpreter('async binding');
    return result;
  }
  throw jerr('T1006');
}

export function settled(result: any): any {
  if (result && typeof result.then === 'function') throw new NeedsInterpreter('async built-in');
  return result;
}

export function compileLambda(node: Node, compileNode: Compile): Fn {
  // jsonata wraps a tail call in a thunk lambda for its trampoline; here the call is simply made (the depth budget
  // bounds the recursion instead).
  if (node.thunk === true) return compileNode(node.body);
  if (node.signature) throw new Unsupported('lambda signatures');
  const params: number[] = node.arguments.map((a: Node) => slotOf(a.value)!);
  const body = compileNode(node.body);
  // Most nodes are not counted against the depth budget (compileBare), so a call counts as deep as its body can
  // nest: a recursion is stopped after about as many nested evaluations as before, and as much JS stack.
  const weight = nesting(node.body);
  return (input, env) => {
    const lambda: any = (args: any[]) => {
      enterBy(weight);
      const frame = env.child();
      for (let i = 0; i < params.length; i++) frame.set(params[i], args[i]);
      const result = body(input, frame);
      budget.depth -= weight;
      return result;
    };
    lambda[LAMBDA] = true;
    lambda._jsonata_lambda = true;
    lambda.arity = params.length;
    return lambda;
  };
}

/** How many AST nodes deep `n` nests, not counting the bodies of lambdas defined in it (each counts its own when called). */
function nesting(n: any): number {
  if (Array.isArray(n)) return n.reduce((deepest: number, item: any) => Math.max(deepest, nesting(item)), 0);
  if (n === null || typeof n !== 'object' || n instanceof RegExp) return 0;
  if (n.type === 'lambda' && n.thunk !== true) return 1;
  let deepest = 0;
  for (const key of Object.keys(n)) deepest = Math.max(deepest, nesting(n[key]));
  return (typeof n.type === 'string' ? 1 : 0) + deepest;
}
