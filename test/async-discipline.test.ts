import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from '../src/lib/paths';

/**
 * The store is asynchronous (SQLite or PostgreSQL), and a store call that nobody awaits is a write that may land
 * after the answer, or a read whose promise is mistaken for its row (a Promise is always truthy). The type
 * checker does not flag either, so this test does, over src/, bench/ and test/:
 * - a promise-valued expression statement that is neither awaited, returned nor marked `void`;
 * - a promise used as a condition (`if`, `!`, `&&`, `||`, `??`, `?:`), spread (`...p`) or interpolated (`${p}`);
 * - a function returning a promise where the caller's type expects `void` (`pending.push(() => store.x())`,
 *   `array.forEach(async ...)`), whose promise is then dropped.
 */
const TEST_API = new Set(['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach']);

export function asyncFindings(files: string[], program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const findings: string[] = [];
  const isPromise = (node: ts.Node): boolean => isPromiseType(checker.getTypeAtLocation(node), node);
  const isPromiseType = (type: ts.Type, node: ts.Node): boolean => {
    // fastify's instance type is itself intersected with PromiseLike (awaiting it waits for its plugins).
    if (type.isIntersection() && type.types.some((t) => t.symbol?.name?.startsWith('Fastify'))) return false;
    const parts = type.isUnion() ? type.types : [type];
    return parts.some((t) => {
      // A FastifyReply or FastifyInstance is thenable (awaitable for what it settles) but its own methods return it.
      if (t.symbol?.name?.startsWith('Fastify')) return false;
      const then = t.getProperty('then');
      return then !== undefined && (t.symbol?.name === 'Promise' || checker.getTypeOfSymbolAtLocation(then, node).getCallSignatures().length > 0);
    });
  };
  const report = (node: ts.Node, what: string) => {
    const sf = node.getSourceFile();
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart());
    findings.push(`${path.relative(ROOT, sf.fileName)}:${line + 1}: ${what}: ${node.getText().slice(0, 90)}`);
  };
  const expectsVoid = (fn: ts.ArrowFunction | ts.FunctionExpression): boolean => {
    // fastify's register() types an async plugin as its callback form, but awaits the promise it returns.
    const callee = ts.isCallExpression(fn.parent) ? fn.parent.expression : undefined;
    if (callee && ts.isPropertyAccessExpression(callee) && callee.name.text === 'register') return false;
    const contextual = checker.getContextualType(fn);
    if (!contextual) return false;
    // A union (fastify's plugin: callback style or async) accepts a promise if any of its members does.
    const signatures = (contextual.isUnion() ? contextual.types : [contextual]).flatMap((t) => t.getCallSignatures());
    return signatures.length > 0 && signatures.every((s) => (checker.getReturnTypeOfSignature(s).flags & ts.TypeFlags.Void) !== 0);
  };
  const visit = (node: ts.Node) => {
    if (ts.isExpressionStatement(node)) {
      const e = ts.skipPartiallyEmittedExpressions(node.expression);
      const bare = ts.isParenthesizedExpression(e) ? e.expression : e;
      // `p.catch(handler)` and `p.then(onFulfilled, onRejected)` are handled promises.
      const handled = (call: ts.Expression): boolean => ts.isCallExpression(call) && ts.isPropertyAccessExpression(call.expression)
        && (call.expression.name.text === 'catch' || (call.expression.name.text === 'then' && call.arguments.length === 2) || handled(call.expression.expression));
      // node:test's test() and its hooks return promises the runner awaits.
      const runner = ts.isCallExpression(bare) && ts.isIdentifier(bare.expression) && TEST_API.has(bare.expression.text);
      if ((ts.isCallExpression(bare) || ts.isNewExpression(bare)) && !handled(bare) && !runner && isPromise(bare)) report(node, 'promise not awaited');
    }
    const condition = ts.isIfStatement(node) || ts.isWhileStatement(node) ? node.expression : ts.isConditionalExpression(node) ? node.condition : undefined;
    if (condition && isPromise(condition)) report(condition, 'promise used as a condition');
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken && isPromise(node.operand)) report(node, 'promise negated');
    if (ts.isBinaryExpression(node) && [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(node.operatorToken.kind)
      && isPromise(node.left)) report(node.left, 'promise used as a condition');
    // `{ data: saved }` where `saved` is a promise: an object carrying a promise nobody expects.
    const value = ts.isPropertyAssignment(node) ? node.initializer : ts.isShorthandPropertyAssignment(node) ? node.name : undefined;
    // A deferred (`{ promise, resolve }` over a `new Promise`) hands its promise out on purpose.
    const deferred = (v: ts.Node) => {
      const symbol = ts.isShorthandPropertyAssignment(v) ? checker.getShorthandAssignmentValueSymbol(v) : ts.isIdentifier(v) ? checker.getSymbolAtLocation(v) : undefined;
      const declaration = symbol?.valueDeclaration;
      return !!declaration && ts.isVariableDeclaration(declaration) && !!declaration.initializer && ts.isNewExpression(declaration.initializer);
    };
    if (value && isPromise(value) && !(ts.isShorthandPropertyAssignment(node) ? deferred(node) : deferred(value))) {
      const expected = checker.getContextualType(value);
      const anyish = expected && (expected.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;
      if (!expected || anyish || !isPromiseType(expected, value)) report(node, 'promise stored in an object');
    }
    if ((ts.isSpreadAssignment(node) || ts.isSpreadElement(node) || ts.isTemplateSpan(node)) && isPromise(node.expression)) {
      report(node, 'promise spread or interpolated');
    }
    if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && expectsVoid(node)) {
      const returnsPromise = ts.isArrowFunction(node) && !ts.isBlock(node.body) ? isPromise(node.body)
        : (node.modifiers ?? []).some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);
      if (returnsPromise) report(node, 'promise returned where void is expected (dropped)');
    }
    ts.forEachChild(node, visit);
  };
  for (const file of files) visit(program.getSourceFile(file)!);
  return findings;
}

test('no store call or other promise is dropped or mistaken for its value in src/, bench/ and test/', () => {
  const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const program = ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true });
  const files = parsed.fileNames.filter((f) => /^(src|bench|test)[/\\]/.test(path.relative(ROOT, f)));
  assert.ok(files.length > 50, 'the program covers src/');
  const findings = asyncFindings(files, program);
  assert.deepEqual(findings, []);
});

test('the checker finds each kind of mistake (it can fail)', () => {
  const source = `
    declare const store: { get(): Promise<number | undefined>; put(): Promise<void> };
    export async function f(pending: Array<() => void>) {
      store.put();
      const row = store.get();
      if (row) return 1;
      const copy = { ...store.get() };
      const saved = store.get();
      const answer = { data: saved };
      pending.push(() => store.put());
      [1].forEach(async () => { await store.put(); });
      await store.put();
      void store.put();
      return store.get();
    }`;
  const file = path.join(ROOT, '__async_discipline_probe.ts');
  const host = ts.createCompilerHost({ strict: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'] });
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang) => (name === file ? ts.createSourceFile(name, source, lang, true) : read(name, lang));
  const program = ts.createProgram([file], { strict: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], noEmit: true }, host);
  const findings = asyncFindings([file], program).map((f) => f.replace(/^.*?:\d+: /, ''));
  assert.deepEqual(findings.map((f) => f.split(':')[0]), [
    'promise not awaited', 'promise used as a condition', 'promise spread or interpolated', 'promise stored in an object', 'promise returned where void is expected (dropped)', 'promise returned where void is expected (dropped)',
  ]);
});
