import fs from 'node:fs';
import path from 'node:path';
import jsonata from 'jsonata';
import { MAPPINGS_DIR } from '../lib/paths';
import { GATEWAY_IDS, type GatewayId } from '../gateways/registry-ids';
import { GATEWAYS } from '../gateways/registry';
import { guardRendered, type AmountDeclaration } from './amount-guard';
import { checkCompleteness, describeFolder } from './completeness';
import { mappingFunctions } from './functions';
import { BudgetExceeded, compileExpression, ConcurrentErrors, describeError, NeedsInterpreter, toPlain, type CompiledMapping, type EnginePath, type Limits } from './compiled';

/** Every mapping file that cannot be used, each problem as `file[:line[:column]]: what`, a syntax error with its line. */
export class MappingLoadError extends Error {
  constructor(public readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : `${problems.length} mapping files are broken:\n${problems.join('\n')}`);
    this.name = 'MappingLoadError';
  }

  get file(): string {
    return this.problems[0].split(':')[0];
  }
}

/** The normalized statuses (SPEC.md "States and transitions"); status.json may map only to these. */
export const NORMALIZED_STATUSES = ['approved', 'pending', 'processing', 'declined', 'cancelled', 'refunded', 'failed', 'disputed', 'charged_back'];

/** A JSONata compile error as `file:line:column: CODE message`, then the line and a caret under the column. */
export function syntaxProblem(rel: string, source: string, err: { code?: string; message?: string; position?: number; token?: string }): string {
  const end = typeof err.position === 'number' ? err.position : 0;
  // jsonata's position is just past the offending token.
  const offset = Math.max(0, Math.min(source.length, end - (typeof err.token === 'string' && err.token.length ? err.token.length : 1)));
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  const text = source.split('\n')[line - 1] ?? '';
  const gutter = String(line).length;
  return `${rel}:${line}:${column}: ${err.code ?? 'error'} ${err.message ?? 'syntax error'}\n  ${line} | ${text}\n  ${' '.repeat(gutter)} | ${' '.repeat(column - 1)}^`;
}

/** status.json problems: not an object of strings, or a native status mapped to a status that does not exist. */
export function statusTableProblems(rel: string, source: string, table: unknown): string[] {
  if (!table || typeof table !== 'object' || Array.isArray(table)) return [`${rel}: must be an object of "<native status>": "<normalized status>"`];
  const lines = source.split('\n');
  const problems: string[] = [];
  for (const [native, normalized] of Object.entries(table)) {
    if (typeof normalized === 'string' && NORMALIZED_STATUSES.includes(normalized)) continue;
    const at = lines.findIndex((l) => l.includes(JSON.stringify(native)));
    problems.push(`${rel}${at >= 0 ? `:${at + 1}` : ''}: "${native}" maps to ${JSON.stringify(normalized)}, which is not a normalized status (${NORMALIZED_STATUSES.join(', ')})`);
  }
  return problems;
}

export class MappingEvaluationError extends Error {
  constructor(public readonly mapping: string, detail: string) {
    super(`mapping ${mapping} failed: ${detail}`);
    this.name = 'MappingEvaluationError';
  }
}

/** A mapping stopped by its evaluation budget (a runaway loop or recursion): the request fails, the event loop does not stall. */
export class MappingBudgetError extends MappingEvaluationError {
  constructor(mapping: string, public readonly reason: string) {
    super(mapping, `stopped: it ${reason}`);
    this.name = 'MappingBudgetError';
  }
}

type Expression = ReturnType<typeof jsonata>;

/**
 * Evaluation budget of one mapping call. Real mappings nest a few dozen evaluations and finish in well under a
 * millisecond; these limits only stop a mapping that loops or recurses without end. A compiled mapping runs
 * synchronously, so its time is its own; the interpreter interleaves its awaits with every other request's
 * evaluations, so its wall-clock budget is wider.
 */
export const MAPPING_LIMITS: Limits = { maxDepth: 500, maxMs: 100 };
export const INTERPRETER_TIMEOUT_MS = 1000;

/** One mapping file: the interpreter's expression, and its compiled function when the compiler covers it. */
export interface LoadedMapping {
  expression: Expression;
  compiled?: CompiledMapping;
  path: EnginePath;
}

/** `compile: false` keeps every mapping on the interpreter; `generate: false` keeps compiled ones as closures (tests). */
export interface MappingOptions {
  compile?: boolean;
  generate?: boolean;
  /** Each mapping's file (relative, as messages name it) and text: a runtime error then names its line and column. */
  sources?: ReadonlyMap<string, { file: string; source: string }>;
}

/** `file:line:column` of a jsonata position (just past the token it blames) in a mapping's text. */
export function positionIn(file: string, source: string, position: number): string {
  const offset = Math.max(0, Math.min(source.length, position - 1));
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  return `${file}:${line}:${offset - (before.lastIndexOf('\n') + 1) + 1}`;
}

/**
 * The money guard's declaration of a gateway: its descriptor's (src/gateways/<id>/amounts.ts). An unregistered
 * gateway folder (the template) is read from its own descriptor.
 */
export function amountDeclaration(gateway: GatewayId): AmountDeclaration | undefined {
  const registered = GATEWAYS.find((g) => g.id === gateway);
  if (registered) return registered.amounts;
  if (!/^[a-z][a-z0-9_]*$/.test(gateway)) return undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require(`../gateways/${gateway}`) as { descriptor?: { amounts?: AmountDeclaration } }).descriptor?.amounts;
  } catch {
    return undefined;
  }
}

/** One gateway's compiled mappings. */
export class MappingSet {
  private readonly bindings: Record<string, unknown>;
  private readonly mappings: Map<string, LoadedMapping>;
  private readonly sources: ReadonlyMap<string, { file: string; source: string }> | undefined;
  /** Where this gateway's requests carry amounts (the money guard); checked on every evaluate of a request mapping. */
  readonly amounts: AmountDeclaration | undefined;

  constructor(
    public readonly gateway: GatewayId,
    expressions: Map<string, Expression>,
    public readonly statusTable: Record<string, string>,
    options: MappingOptions = {},
  ) {
    this.bindings = mappingFunctions(statusTable);
    this.amounts = amountDeclaration(gateway);
    this.sources = options.sources;
    this.mappings = new Map([...expressions].map(([name, expression]): [string, LoadedMapping] => {
      if (options.compile === false) return [name, { expression, path: { engine: 'interpreter', reason: 'compilation turned off' } }];
      const { fn, path } = compileExpression(expression, { generate: options.generate });
      return [name, { expression, compiled: fn, path }];
    }));
  }

  /** Which engine evaluates each mapping (`routegate mappings check` prints it). */
  engines(): Map<string, EnginePath> {
    return new Map([...this.mappings].map(([name, m]) => [name, m.path]));
  }

  names(): string[] {
    return [...this.mappings.keys()].sort();
  }

  has(name: string): boolean {
    return this.mappings.has(name);
  }

  /**
   * A mapping's output for `input`. A request mapping's output passes the money guard first (src/mapping/amount-guard.ts):
   * an amount other than the operation's throws MappingAmountError, so the adapter never sends it.
   */
  async evaluate<T = any>(name: string, input: unknown, extraBindings?: Record<string, unknown>): Promise<T> {
    const mapping = this.mappings.get(name);
    if (!mapping) throw new MappingEvaluationError(`${this.gateway}/${name}`, 'no such mapping file');
    // Neither engine writes to the bindings it is given, so without extra ones the set's own object serves.
    const bindings = extraBindings ? { ...this.bindings, ...extraBindings } : this.bindings;
    // Only request mappings have a rule: every other evaluation pays one property read.
    const guarded = this.amounts?.requests[name] !== undefined;
    if (mapping.compiled) {
      let value: T;
      try {
        value = mapping.compiled(input, bindings, MAPPING_LIMITS) as T;
      } catch (err) {
        if (err instanceof BudgetExceeded) throw new MappingBudgetError(`${this.gateway}/${name}`, err.message);
        // Errors are rare (a malformed gateway answer, $error): the interpreter evaluates again, so the error a
        // caller sees, its code and message, is jsonata's own; NeedsInterpreter (an async binding) lands here too.
        if (!(err instanceof NeedsInterpreter) && !isJsonataError(err)) throw err;
        return this.guard(guarded, name, input, extraBindings, await this.interpret<T>(name, mapping.expression, input, bindings));
      }
      return this.guard(guarded, name, input, extraBindings, value);
    }
    return this.guard(guarded, name, input, extraBindings, await this.interpret<T>(name, mapping.expression, input, bindings));
  }

  /** The money guard on a request mapping's output (src/mapping/amount-guard.ts): throws MappingAmountError, never sends. */
  private guard<T>(guarded: boolean, name: string, input: unknown, extraBindings: Record<string, unknown> | undefined, value: T): T {
    if (guarded) guardRendered(this.gateway, this.amounts, name, input, extraBindings, value);
    return value;
  }

  /**
   * One engine alone, no fallback: the differential test compares the two. An error is reported as its jsonata
   * code (or message), the value as the plain JSON callers get. Where compiled values that jsonata evaluates
   * concurrently failed with different errors (ConcurrentErrors), which one it raises depends on its awaits: the
   * interpreter picks, as evaluate() has it do, and its pick must be one of the compiled failures.
   */
  async evaluateWith(engine: 'compiled' | 'interpreter', name: string, input: unknown, extraBindings: Record<string, unknown> = {}): Promise<{ value?: unknown; error?: string }> {
    const mapping = this.mappings.get(name);
    if (!mapping) throw new MappingEvaluationError(`${this.gateway}/${name}`, 'no such mapping file');
    const bindings = { ...this.bindings, ...extraBindings };
    try {
      if (engine === 'interpreter') return { value: toPlain(await mapping.expression.evaluate(input, bindings)) };
      if (!mapping.compiled) throw new Error(`${name} is not compiled: ${mapping.path.engine === 'interpreter' ? mapping.path.reason : ''}`);
      return { value: mapping.compiled(input, bindings, MAPPING_LIMITS) };
    } catch (err) {
      if (err instanceof ConcurrentErrors) return this.pickConcurrent(err, mapping.expression, input, bindings);
      if (err instanceof NeedsInterpreter) throw err;
      return { error: describeError(err) };
    }
  }

  private async pickConcurrent(err: ConcurrentErrors, expression: Expression, input: unknown, bindings: Record<string, unknown>): Promise<{ error: string }> {
    const candidates = err.errors.map(describeError);
    try {
      await expression.evaluate(input, bindings);
    } catch (picked) {
      const code = describeError(picked);
      if (candidates.includes(code)) return { error: code };
      return { error: `the interpreter raised ${code}, none of the compiled failures (${candidates.join(', ')})` };
    }
    return { error: `the interpreter succeeded where the compiled values failed (${candidates.join(', ')})` };
  }

  /** The jsonata interpreter, with the same budget (jsonata's own `stack` and `timeout` guardrails). */
  async interpret<T = any>(name: string, expr: Expression, input: unknown, bindings: Record<string, unknown>): Promise<T> {
    try {
      const result = await expr.evaluate(input, bindings);
      return toPlain(result) as T;
    } catch (err) {
      const e = err as { code?: string; message?: string; position?: number; token?: unknown };
      if (e.code === 'D1011') throw new MappingBudgetError(`${this.gateway}/${name}`, `nested deeper than ${MAPPING_LIMITS.maxDepth} evaluations (runaway recursion?)`);
      if (e.code === 'D1012') throw new MappingBudgetError(`${this.gateway}/${name}`, `ran longer than ${INTERPRETER_TIMEOUT_MS} ms (runaway loop?)`);
      // Where it failed and in which function, so a T1006 "Attempted to invoke a non-function" names both.
      const src = this.sources?.get(name);
      const at = src && typeof e.position === 'number' ? ` at ${positionIn(src.file, src.source, e.position)}` : '';
      const fn = typeof e.token === 'string' && e.token ? ` (${e.code?.startsWith('T10') ? `function $${e.token}` : `near ${e.token}`})` : '';
      throw new MappingEvaluationError(`${this.gateway}/${name}`, `${e.code ?? ''} ${e.message ?? String(err)}${fn}${at}`.trim());
    }
  }
}

/** jsonata throws plain objects with a code (T2001, D3137...), or a TypeError out of a built-in or binding. */
function isJsonataError(err: unknown): boolean {
  return (typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string') || err instanceof Error;
}

export type MappingRegistry = Map<GatewayId, MappingSet>;

/**
 * Compile every mappings/<gateway>/*.jsonata once, for the registered gateways (or `gateways`, e.g. the unregistered
 * template's). A broken file stops start-up naming it.
 */
export function loadMappings(dir: string = MAPPINGS_DIR, gateways: readonly GatewayId[] = GATEWAY_IDS, options: MappingOptions = {}): MappingRegistry {
  const registry: MappingRegistry = new Map();
  const problems: string[] = [];
  for (const gateway of gateways) {
    const gwDir = path.join(dir, gateway);
    const expressions = new Map<string, Expression>();
    const sources = new Map<string, { file: string; source: string }>();
    let statusTable: Record<string, string> = {};
    if (fs.existsSync(gwDir)) {
      for (const file of fs.readdirSync(gwDir).sort()) {
        const full = path.join(gwDir, file);
        const rel = path.relative(path.dirname(dir), full);
        if (file.endsWith('.jsonata')) {
          const source = fs.readFileSync(full, 'utf8');
          try {
            expressions.set(file.slice(0, -'.jsonata'.length), jsonata(source, { stack: MAPPING_LIMITS.maxDepth, timeout: INTERPRETER_TIMEOUT_MS } as never));
            sources.set(file.slice(0, -'.jsonata'.length), { file: rel, source });
          } catch (err) {
            problems.push(syntaxProblem(rel, source, err as { code?: string; message?: string; position?: number; token?: string }));
          }
        } else if (file === 'status.json') {
          const source = fs.readFileSync(full, 'utf8');
          try {
            statusTable = JSON.parse(source);
          } catch (err) {
            problems.push(`${rel}: invalid JSON: ${(err as Error).message}`);
            continue;
          }
          problems.push(...statusTableProblems(rel, source, statusTable));
        }
      }
    }
    registry.set(gateway, new MappingSet(gateway, expressions, statusTable, { ...options, sources }));
  }
  if (problems.length) throw new MappingLoadError(problems);
  return registry;
}

/**
 * The completeness rule (src/mapping/completeness.ts) as a start-up refusal: every mapping this version ships, its
 * fixtures and status.json, and no file left unread. One missing would fail only when a charge first needs it (a
 * capture, a refund), so it stops start-up instead, saying which files to copy where.
 */
export function assertShippedMappings(dir: string, _registry?: MappingRegistry): void {
  const { problems } = checkCompleteness(dir);
  if (problems.length) throw new MappingFolderError(dir, problems);
}

/** A mappings folder that is not complete: the check and start-up list the same problems. */
export class MappingFolderError extends MappingLoadError {
  constructor(readonly dir: string, problems: string[]) {
    super(problems);
    this.message = [
      `the mappings folder ${describeFolder(dir)} is not complete (${problems.length} problem${problems.length === 1 ? '' : 's'}):`,
      ...problems.map((p) => `  ${p}`),
      'npx routegate mappings check lists the same problems; npx routegate mappings diff shows what differs from this version\'s mappings.',
    ].join('\n');
    this.name = 'MappingFolderError';
  }
}
