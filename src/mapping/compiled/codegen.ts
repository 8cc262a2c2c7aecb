// A mapping's answer as one generated JS function instead of a tree of closures: blocks, bindings, conditions,
// operators, variables, literals, name paths, function calls and object and array constructors are written inline
// as statements, and the objects and arrays the answer constructs are built plain in place. Every node keeps the
// semantics of its closure (compile.ts, answer.ts, operators.ts, calls.ts, paths.ts), line for line; a node the
// generator does not write (filters, `#$i`, lambdas, regexes, ranges, a path over an array, a constructor over a
// list) is evaluated by its closure, called from the generated code. In the service the closures cost a call per
// node through call sites every mapping shares (megamorphic), and the two mappings of a charge were a tenth of its
// CPU (docs/performance.md, eighth round). Where code generation is forbidden
// (`--disallow-code-generation-from-strings`) the closures serve as before.
import {
  append, budget, collapse, enter, focus, isDeepEqual, isFunction, shadowed, syncPorts, toBoolean, toStr, type Fn,
} from './runtime';
import { apply, asCallable, settled } from './calls';
import { plainNames } from './paths';
import { quickCheck } from './signatures';
import { compare, numeric } from './operators';
import { concurrentFailure } from './concurrent';
import { constantKeys } from './objects';
import { toPlain, toPlainItem } from './plain';
import { neverSequence, unwrapped } from './answer';
import { slotOf } from './slots';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = any;

export interface CodegenHooks {
  /** The node's closure (compile.ts's compileNode): what the generated code calls for a node it does not write. */
  compileNode: (n: Node) => Fn;
  /** The answer's closure (answer.ts's compileAnswer), used on the failure path of constructors. */
  compileAnswer: (n: Node) => Fn;
  /** The built-in a `$name` reads when the expression never rebinds it (compile.ts's builtinFor). */
  builtinFor: (n: Node) => any;
  /** collapse(v, false) for a value that is rarely a sequence (compile.ts). */
  collapseValue: (v: any) => any;
  /** ASYNC_BUILTINS: names left to the closures (which refuse them). */
  asyncBuiltins: ReadonlySet<string>;
}

/** Beyond this much source the closures are kept: a generated function that size would cost more to compile than it saves. */
const MAX_SOURCE = 200_000;

const isLiteral = (node: Node): boolean => unwrapped(node) && (node.type === 'string' || node.type === 'number' || node.type === 'value');

class Writer {
  readonly lines: string[] = [];
  /** Values the source refers to as `k[i]`: constants and the closures of nodes not written inline. */
  readonly refs: unknown[] = [];
  private temps = 0;

  constructor(private readonly hooks: CodegenHooks) {}

  ref(value: unknown): string {
    this.refs.push(value);
    return `k[${this.refs.length - 1}]`;
  }

  temp(): string {
    return `t${this.temps++}`;
  }

  declarations(): string {
    return this.temps === 0 ? '' : `let ${Array.from({ length: this.temps }, (_v, i) => `t${i}`).join(', ')};`;
  }

  /** `const t = <expression>;` and t: each value is computed where it is written, so evaluation keeps its order. */
  assign(expression: string): string {
    const t = this.temp();
    this.lines.push(`${t} = ${expression};`);
    return t;
  }

  /** The node's closure, called on the generated function's input in scope `env`. */
  closure(node: Node, env: string): string {
    return this.assign(`${this.ref(this.hooks.compileNode(node))}(input, ${env})`);
  }

  /** What compileNode(node)(input, env) gives, as a temp or a constant. */
  value(node: Node, env: string): string {
    // A predicate, `[]` or a group-by goes through compileNode's wrapper (or is refused by it): its closure.
    if (!unwrapped(node)) return this.closure(node, env);
    if (isLiteral(node)) return this.ref(node.value);
    switch (node.type) {
      case 'variable': return this.variable(node, env);
      case 'condition': return this.condition(node, env);
      case 'bind': return this.bind(node, env);
      case 'binary': return node.value === '..' ? this.closure(node, env) : this.binary(node, env);
      case 'block': return this.block(node, env);
      case 'path': return this.path(node, env);
      case 'function': return this.call(node, env);
      case 'unary': return node.value === '{' ? this.object(node, env) : node.value === '[' ? this.array(node, env) : this.closure(node, env);
      default: return this.closure(node, env);
    }
  }

  /**
   * objects.ts's compileGroup with constant keys over one input (object-literal.ts's constructor), inline; over a
   * list, or with other keys, the constructor's closure groups.
   */
  private object(node: Node, env: string): string {
    const keys = constantKeys(node);
    const whole = this.ref(this.hooks.compileNode(node));
    if (keys === undefined) return this.assign(`${whole}(input, ${env})`);
    const values = node.lhs.map((pair: Node[]) => this.hooks.compileNode(pair[1]));
    return this.constructed(node, keys, env, `${whole}(input, ${env})`, values, (n) => this.value(n, env));
  }

  /**
   * `{'k': v, ...}` with constant keys: over a list `overList`, else each value written by `write` and stored unless
   * undefined, in key order; after a failed value, the ones after it are evaluated by their `closures`
   * (concurrent.ts), as object-literal.ts's constructor does.
   */
  private constructed(node: Node, keys: string[], env: string, overList: string, closures: Fn[], write: (n: Node) => string): string {
    const t = this.temp();
    const depth = this.temp();
    const at = this.temp();
    const failed = this.ref(closures);
    this.lines.push(`if (Array.isArray(input)) ${t} = ${overList};`, 'else {');
    this.lines.push(`${t} = {};`, `${depth} = budget.depth;`, `${at} = 0;`, 'try {');
    keys.forEach((key, i) => {
      this.lines.push(`${at} = ${i};`);
      const v = write(node.lhs[i][1]);
      this.lines.push(`if (${v} !== undefined) ${t}[${JSON.stringify(key)}] = ${v};`);
    });
    this.lines.push('} catch (err) {', `throw concurrentFailure(err, ${depth}, ${at}, ${keys.length}, (i) => ${failed}[i](input, ${env}));`, '}', '}');
    return t;
  }

  /** compile.ts's array constructor: each item appended (flattened unless it is itself `[...]`). */
  private array(node: Node, env: string): string {
    const items = this.ref(node.expressions.map((item: Node) => this.hooks.compileNode(item)));
    const t = this.temp();
    const depth = this.temp();
    const at = this.temp();
    this.lines.push(`${t} = [];`, `${depth} = budget.depth;`, `${at} = 0;`, 'try {');
    node.expressions.forEach((item: Node, i: number) => {
      this.lines.push(`${at} = ${i};`);
      const v = this.value(item, env);
      this.lines.push(item.value === '[' ? `if (${v} !== undefined) ${t}.push(${v});` : `if (${v} !== undefined) ${t} = append(${t}, ${v});`);
    });
    this.lines.push('} catch (err) {', `throw concurrentFailure(err, ${depth}, ${at}, ${node.expressions.length}, (i) => ${items}[i](input, ${env}));`, '}');
    if (node.consarray === true) this.lines.push(`Object.defineProperty(${t}, 'cons', { enumerable: false, configurable: false, value: true });`);
    return t;
  }

  /**
   * paths.ts's namePath for `$var.a.b` or `a.b` (compilePath collapsed, plainNames), inline: each name read at a
   * site of its own; at an array, or a path of another kind, the path's closure walks it (paths are side-effect free,
   * so reading the first names again changes nothing).
   */
  private path(node: Node, env: string): string {
    const walk = this.ref(this.hooks.compileNode(node));
    if (node.keepSingletonArray === true || !plainNames(node.steps)) return this.assign(`${walk}(input, ${env})`);
    const fromContext = node.steps[0].type === 'name';
    const t = fromContext ? this.assign('input') : this.value(node.steps[0], env);
    const keys: string[] = node.steps.slice(fromContext ? 0 : 1).map((n: Node) => n.value);
    this.lines.push(`if (Array.isArray(${t})) ${t} = ${walk}(input, ${env});`, 'else do {');
    for (const key of keys) {
      const k = JSON.stringify(key);
      this.lines.push(
        `if (${t} === null || typeof ${t} !== 'object' || !hasOwn.call(${t}, ${k}) || ${t}._jsonata_function === true || ${t}._jsonata_lambda === true) { ${t} = undefined; break; }`,
        `${t} = ${t}[${k}];`,
        `if (Array.isArray(${t})) {`,
        `if (${t}.sequence !== true) { ${t} = ${walk}(input, ${env}); break; }`,
        `${t} = collapse(${t}, false);`,
        `if (Array.isArray(${t})) { ${t} = ${walk}(input, ${env}); break; }`,
        '}',
      );
    }
    this.lines.push('} while (false);');
    return t;
  }

  /**
   * A function call through compileNode's wrapper (counted against the depth budget, its value collapsed), as
   * calls.ts's compileFunction: a built-in known at compile time is applied directly unless a binding shadows it
   * (then the call's closure resolves it); anything else is resolved first, then its arguments evaluated.
   */
  private call(node: Node, env: string): string {
    const whole = this.ref(this.hooks.compileNode(node));
    if (node.procedure.type === 'path' || node.arguments.some((a: Node) => a.type === 'operator')) return this.assign(`${whole}(input, ${env})`);
    const builtin = this.hooks.builtinFor(node.procedure);
    const known = builtin !== undefined && builtin._jsonata_function === true;
    const t = this.temp();
    if (known) this.lines.push(`if (shadowed.builtins) ${t} = ${whole}(input, ${env});`, 'else {');
    this.lines.push('enter();');
    const f = known ? undefined : this.value(node.procedure, env);
    const args = node.arguments.map((a: Node) => {
      const v = this.value(a, env);
      // A function passed as an argument is wrapped with its arity (a literal never is one).
      if (!isLiteral(a)) this.lines.push(`if (isFunction(${v})) ${v} = asCallable(${v});`);
      return v;
    });
    const list = `[${args.join(', ')}]`;
    if (known) {
      const implementation = this.ref(syncPorts.get(builtin.implementation) ?? builtin.implementation);
      const signature = builtin.signature;
      const quick = signature ? quickCheck(signature.definition) : undefined;
      const sig = signature ? this.ref(signature) : undefined;
      const validated = !sig ? list : quick ? `(${this.ref(quick)}(${t}) ?? ${sig}.validate(${t}, input))` : `${sig}.validate(${t}, input)`;
      this.lines.push(`${t} = ${list};`, `${t} = ${validated};`, 'focus.input = input;', `${t} = settled(${implementation}.apply(focus, ${t}));`);
    } else {
      this.lines.push(`${t} = apply(${f}, ${list}, input);`);
    }
    this.lines.push('budget.depth--;', `${t} = collapse(${t}, false);`);
    if (known) this.lines.push('}');
    return t;
  }

  /** compile.ts's compileLeaf for a variable (no predicate). */
  private variable(node: Node, env: string): string {
    const name: string = node.value;
    if (name === '' || this.hooks.asyncBuiltins.has(name)) return this.closure(node, env);
    const quoted = JSON.stringify(name);
    const builtin = this.hooks.builtinFor(node);
    if (builtin !== undefined) return this.assign(`shadowed.builtins ? collapseValue(${env}.global(${quoted})) : ${this.ref(builtin)}`);
    const slot = slotOf(name);
    if (slot === undefined) return this.assign(`collapseValue(${env}.global(${quoted}))`);
    return this.assign(`collapseValue(${env}.get(${slot}, ${quoted}))`);
  }

  /** compileCondition(node, collapsed = true). */
  private condition(node: Node, env: string): string {
    return this.assign(`collapseValue(${this.choice(node, env, (n) => this.value(n, env))})`);
  }

  /**
   * `c ? a : b` as a statement: the branch `write` writes (or undefined) in a temp. One push per line: a branch
   * writes its own lines while its value is computed, and they belong inside the branch.
   */
  private choice(node: Node, env: string, write: (n: Node) => string): string {
    const t = this.temp();
    const cond = this.value(node.condition, env);
    this.lines.push(`if (toBoolean(${cond})) {`);
    this.lines.push(`${t} = ${write(node.then)};`);
    this.lines.push('} else {');
    this.lines.push(`${t} = ${node.else === undefined ? 'undefined' : write(node.else)};`);
    this.lines.push('}');
    return t;
  }

  /** compileBind(node, collapsed = true). */
  private bind(node: Node, env: string): string {
    const slot = slotOf(node.lhs.value)!;
    const rhs = this.value(node.rhs, env);
    return this.assign(`collapseValue(${env}.set(${slot}, ${rhs}))`);
  }

  /** operators.ts's compileBinary: and/or short-circuit, the others evaluate the left operand, then the right. */
  private binary(node: Node, env: string): string {
    const op: string = node.value;
    if (op === 'and' || op === 'or') {
      const t = this.temp();
      this.lines.push(`${t} = toBoolean(${this.value(node.lhs, env)}) ?? false;`);
      this.lines.push(op === 'and' ? `if (${t}) {` : `if (!${t}) {`);
      this.lines.push(`${t} = toBoolean(${this.value(node.rhs, env)}) ?? false;`);
      this.lines.push('}');
      return t;
    }
    const l = this.value(node.lhs, env);
    const r = this.value(node.rhs, env);
    switch (op) {
      case '+': case '-': case '*': case '/': case '%': return this.assign(`numeric(${l}, ${r}, ${JSON.stringify(op)})`);
      case '=': return this.assign(`${l} === undefined || ${r} === undefined ? false : isDeepEqual(${l}, ${r})`);
      case '!=': return this.assign(`${l} === undefined || ${r} === undefined ? false : !isDeepEqual(${l}, ${r})`);
      case '<': case '<=': case '>': case '>=': return this.assign(`compare(${l}, ${r}, ${JSON.stringify(op)})`);
      case '&': return this.assign(`(${l} === undefined ? '' : toStr(${l})).concat(${r} === undefined ? '' : toStr(${r}))`);
      case 'in': return this.assign(`${l} === undefined || ${r} === undefined ? false : (Array.isArray(${r}) ? ${r} : [${r}]).some((x) => x === ${l})`);
      // An operator the closures do not know either: they refuse it at compile time.
      default: return this.closure(node, env);
    }
  }

  /** A block through compileNode's wrapper: counted against the depth budget, its value collapsed. */
  private block(node: Node, env: string): string {
    const frame = this.temp();
    const t = this.temp();
    this.lines.push('enter();', `${frame} = ${env}.child();`, `${t} = undefined;`);
    for (const e of node.expressions) this.lines.push(`${t} = ${this.value(e, frame)};`);
    this.lines.push('budget.depth--;');
    return this.assign(`collapse(${t}, false)`);
  }

  /** What answer.ts's compileAnswer(node)(input, env) gives: plain JSON, constructors built plain in place. */
  answer(node: Node, env: string): string {
    if (unwrapped(node)) {
      if (node.type === 'unary' && node.value === '{') {
        const built = this.objectAnswer(node, env);
        if (built) return built;
      }
      if (node.type === 'unary' && node.value === '[') return this.arrayAnswer(node, env);
      if (node.type === 'condition') return this.conditionAnswer(node, env);
      if (node.type === 'block' && node.expressions.length > 0) return this.blockAnswer(node, env);
    }
    return this.assign(`toPlain(${this.value(node, env)})`);
  }

  /** compileCollapsedAnswer. */
  private collapsedAnswer(node: Node, env: string): string {
    if (neverSequence(node)) return this.answer(node, env);
    return this.assign(`toPlain(collapse(${this.value(node, env)}, false))`);
  }

  /** objectAnswer with the literal's failure path: the values after a failed one evaluated by their closures. */
  private objectAnswer(node: Node, env: string): string | undefined {
    const keys = constantKeys(node);
    if (keys === undefined || keys.includes('toJSON')) return undefined;
    const general = this.ref(this.hooks.compileNode(node));
    const values = node.lhs.map((pair: Node[]) => this.hooks.compileAnswer(pair[1]));
    return this.constructed(node, keys, env, `toPlain(${general}(input, ${env}))`, values, (n) => this.answer(n, env));
  }

  /** arrayAnswer: each item appended (an array item flattened unless it is itself `[...]`), each item made plain. */
  private arrayAnswer(node: Node, env: string): string {
    const t = this.temp();
    const depth = this.temp();
    const at = this.temp();
    const isObject = (item: Node) => item.type === 'unary' && item.value === '{' && unwrapped(item);
    const evaluators = this.ref(node.expressions.map((item: Node) => (isObject(item) ? this.hooks.compileAnswer(item) : this.hooks.compileNode(item))));
    this.lines.push(`${t} = [];`, `${depth} = budget.depth;`, `${at} = 0;`, 'try {');
    node.expressions.forEach((item: Node, i: number) => {
      this.lines.push(`${at} = ${i};`);
      if (isObject(item)) {
        this.lines.push(`${t}.push(${this.answer(item, env)});`);
        return;
      }
      const v = this.value(item, env);
      const nested = item.value === '[';
      this.lines.push(`if (${v} !== undefined) {`);
      if (nested) this.lines.push(`${t}.push(toPlainItem(${v}));`);
      else this.lines.push(`if (Array.isArray(${v})) for (let i = 0; i < ${v}.length; i++) ${t}.push(toPlainItem(${v}[i]));`, `else ${t}.push(toPlainItem(${v}));`);
      this.lines.push('}');
    });
    this.lines.push('} catch (err) {', `throw concurrentFailure(err, ${depth}, ${at}, ${node.expressions.length}, (i) => ${evaluators}[i](input, ${env}));`, '}');
    return t;
  }

  /** conditionAnswer: the chosen branch's answer. */
  private conditionAnswer(node: Node, env: string): string {
    return this.choice(node, env, (n) => this.collapsedAnswer(n, env));
  }

  /** blockAnswer: counted against the depth budget; the last expression's value is the answer. */
  private blockAnswer(node: Node, env: string): string {
    const frame = this.temp();
    this.lines.push('enter();', `${frame} = ${env}.child();`);
    const exprs = node.expressions;
    for (const e of exprs.slice(0, -1)) this.value(e, frame);
    const t = this.collapsedAnswer(exprs[exprs.length - 1], frame);
    this.lines.push('budget.depth--;');
    return t;
  }
}

/**
 * The expression's answer as one generated function, or undefined where code generation is forbidden or the
 * source would be too large (the caller keeps compileAnswer's closures). Call inside compileWithSlots.
 */
export function generateAnswer(ast: Node, hooks: CodegenHooks): Fn | undefined {
  const w = new Writer(hooks);
  const answer = w.answer(ast, 'env');
  // Mapping files are operator-editable: what they write reaches the source only as JSON string literals (keys,
  // names) and numbers (slots); every other value is a reference into `k`.
  const source = `return function mapping(input, env) {\n${w.declarations()}\n${w.lines.join('\n')}\nreturn ${answer};\n};`;
  if (source.length > MAX_SOURCE) return undefined;
  try {
    return new Function(
      'k', 'budget', 'collapse', 'collapseValue', 'enter', 'isDeepEqual', 'shadowed', 'toBoolean', 'toStr', 'compare', 'numeric', 'concurrentFailure',
      'toPlain', 'toPlainItem', 'hasOwn', 'isFunction', 'asCallable', 'apply', 'settled', 'focus', 'append', source,
    )(
      w.refs, budget, collapse, hooks.collapseValue, enter, isDeepEqual, shadowed, toBoolean, toStr, compare, numeric, concurrentFailure,
      toPlain, toPlainItem, Object.prototype.hasOwnProperty, isFunction, asCallable, apply, settled, focus, append,
    ) as Fn;
  } catch {
    return undefined;
  }
}
