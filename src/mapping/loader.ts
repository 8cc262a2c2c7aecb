import fs from 'node:fs';
import path from 'node:path';
import jsonata from 'jsonata';
import { MAPPINGS_DIR } from '../lib/paths';
import { GATEWAY_IDS, type GatewayId } from '../gateways/registry-ids';
import { mappingFunctions } from './functions';

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
export const NORMALIZED_STATUSES = ['approved', 'pending', 'processing', 'declined', 'cancelled', 'refunded', 'failed'];

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

type Expression = ReturnType<typeof jsonata>;

/** One gateway's compiled mappings. */
export class MappingSet {
  private readonly bindings: Record<string, unknown>;

  constructor(
    public readonly gateway: GatewayId,
    private readonly expressions: Map<string, Expression>,
    public readonly statusTable: Record<string, string>,
  ) {
    this.bindings = mappingFunctions(statusTable);
  }

  names(): string[] {
    return [...this.expressions.keys()].sort();
  }

  has(name: string): boolean {
    return this.expressions.has(name);
  }

  async evaluate<T = any>(name: string, input: unknown, extraBindings: Record<string, unknown> = {}): Promise<T> {
    const expr = this.expressions.get(name);
    if (!expr) throw new MappingEvaluationError(`${this.gateway}/${name}`, 'no such mapping file');
    try {
      const result = await expr.evaluate(input, { ...this.bindings, ...extraBindings });
      return toPlain(result) as T;
    } catch (err) {
      const e = err as { code?: string; message?: string; position?: number };
      throw new MappingEvaluationError(`${this.gateway}/${name}`, `${e.code ?? ''} ${e.message ?? String(err)}`.trim());
    }
  }
}

// JSONata returns sequences (arrays with extra properties) and may leave undefined fields; callers get
// plain JSON: what JSON.parse(JSON.stringify(v)) would give, without printing and parsing every result.
function toPlain(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'number' && !Number.isFinite(value) ? null : typeof value === 'function' ? undefined : value;
  }
  if (Array.isArray(value)) {
    return value.map((item) => {
      const plain = toPlain(item);
      return plain === undefined ? null : plain;
    });
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.parse(JSON.stringify(value));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const plain = toPlain((value as Record<string, unknown>)[key]);
    if (plain !== undefined) out[key] = plain;
  }
  return out;
}

export type MappingRegistry = Map<GatewayId, MappingSet>;

/**
 * Compile every mappings/<gateway>/*.jsonata once, for the registered gateways (or `gateways`, e.g. the unregistered
 * template's). A broken file stops start-up naming it.
 */
export function loadMappings(dir: string = MAPPINGS_DIR, gateways: readonly GatewayId[] = GATEWAY_IDS): MappingRegistry {
  const registry: MappingRegistry = new Map();
  const problems: string[] = [];
  for (const gateway of gateways) {
    const gwDir = path.join(dir, gateway);
    const expressions = new Map<string, Expression>();
    let statusTable: Record<string, string> = {};
    if (fs.existsSync(gwDir)) {
      for (const file of fs.readdirSync(gwDir).sort()) {
        const full = path.join(gwDir, file);
        const rel = path.relative(path.dirname(dir), full);
        if (file.endsWith('.jsonata')) {
          const source = fs.readFileSync(full, 'utf8');
          try {
            expressions.set(file.slice(0, -'.jsonata'.length), jsonata(source));
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
    registry.set(gateway, new MappingSet(gateway, expressions, statusTable));
  }
  if (problems.length) throw new MappingLoadError(problems);
  return registry;
}

/**
 * An operator's own mappings folder (ROUTEGATE_MAPPINGS_DIR) must hold, for each gateway it has, every mapping this
 * version ships: one missing would fail only when a charge first needs it (a capture, a refund), so it stops
 * start-up instead.
 */
export function assertShippedMappings(dir: string, registry: MappingRegistry): void {
  if (path.resolve(dir) === path.resolve(MAPPINGS_DIR)) return;
  const problems: string[] = [];
  for (const [gateway, set] of registry) {
    const shipped = path.join(MAPPINGS_DIR, gateway);
    // A gateway without a folder there at all is not served (GET /ready says so); a folder that lacks a file is an upgrade miss.
    if (!fs.existsSync(shipped) || set.names().length === 0) continue;
    for (const f of fs.readdirSync(shipped).filter((name) => name.endsWith('.jsonata') && !set.has(name.slice(0, -'.jsonata'.length)))) {
      problems.push(`${path.join(dir, gateway, f)} is missing: this version of RouteGate ships mappings/${gateway}/${f}; copy it into ${dir}`);
    }
  }
  if (problems.length) throw new MappingLoadError(problems);
}
