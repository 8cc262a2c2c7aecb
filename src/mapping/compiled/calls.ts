// Function calls and lambdas, as jsonata 2.x's evaluateFunction / apply / evaluateLambda: built-ins get their
// arguments checked against their signature and jsonata's `this`; functions passed as arguments are wrapped with
// an arity, as jsonata wraps them for its higher-order built-ins; bindings are called with the context as `this`.
import { focus, isFunction, jerr, LAMBDA, NeedsInterpreter, syncPorts, type Fn } from './runtime';
import { Unsupported } from './unsupported';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = any;
type Compile = (n: Node) => Fn;

export function compileFunction(node: Node, compileNode: Compile): Fn {
  if (node.procedure.type === 'path') throw new Unsupported('calling a path');
  const proc = compileNode(node.procedure);
  const args: Fn[] = node.arguments.map((a: Node) => {
    if (a.type === 'operator') throw new Unsupported('partial application');
    return compileNode(a);
  });
  return (input, env) => {
    const f = proc(input, env);
    const values = args.map((a) => {
      const v = a(input, env);
      return isFunction(v) ? asCallable(v) : v;
    });
    return apply(f, values, input);
  };
}

/** A function passed as an argument, as jsonata wraps it for higher-order built-ins: callable with an arity. */
function asCallable(f: any): any {
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
    const result = (port ?? f.implementation).apply(focus, validated);
    if (result && typeof result.then === 'function') throw new NeedsInterpreter('async built-in');
    return result;
  }
  if (typeof f === 'function') {
    const result = f.apply(input, args);
    if (result && typeof result.then === 'function') throw new NeedsInterpreter('async binding');
    return result;
  }
  throw jerr('T1006');
}

export function compileLambda(node: Node, compileNode: Compile): Fn {
  // jsonata wraps a tail call in a thunk lambda for its trampoline; here the call is simply made (the depth budget
  // bounds the recursion instead).
  if (node.thunk === true) return compileNode(node.body);
  if (node.signature) throw new Unsupported('lambda signatures');
  const params: string[] = node.arguments.map((a: Node) => a.value);
  const body = compileNode(node.body);
  return (input, env) => {
    const lambda: any = (args: any[]) => {
      const frame = env.child();
      for (let i = 0; i < params.length; i++) frame.set(params[i], args[i]);
      return body(input, frame);
    };
    lambda[LAMBDA] = true;
    lambda._jsonata_lambda = true;
    lambda.arity = params.length;
    return lambda;
  };
}
