import fs from 'node:fs';
import path from 'node:path';
import jsonata from 'jsonata';
import { MAPPINGS_DIR } from '../lib/paths';
import { GATEWAY_IDS, type GatewayId } from '../gateways/registry-ids';
import { mappingFunctions } from './functions';

export class MappingLoadError extends Error {
  constructor(public readonly file: string, detail: string) {
    super(`mapping ${file}: ${detail}`);
    this.name = 'MappingLoadError';
  }
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
            const e = err as { code?: string; message?: string; position?: number };
            throw new MappingLoadError(rel, `${e.code ?? 'error'} at position ${e.position ?? '?'}: ${e.message ?? String(err)}`);
          }
        } else if (file === 'status.json') {
          try {
            statusTable = JSON.parse(fs.readFileSync(full, 'utf8'));
          } catch (err) {
            throw new MappingLoadError(rel, `invalid JSON: ${(err as Error).message}`);
          }
        }
      }
    }
    registry.set(gateway, new MappingSet(gateway, expressions, statusTable));
  }
  return registry;
}
