import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { structuredPatch } from 'diff';
import { MAPPINGS_DIR } from '../lib/paths';
import { loadMappings, MappingEvaluationError, type MappingRegistry } from './loader';

export interface FixtureCase {
  description: string;
  input: unknown;
  bindings?: Record<string, unknown>;
  expected?: unknown;
  error?: string;
}

export interface FixtureResult {
  gateway: string;
  mapping: string;
  file: string; // relative to the mappings folder
  ok: boolean;
  message?: string;
  /**
   * Set when the mapping ran (through the money guard) and only its output differs from `expected`: what it
   * produced, which `mappings check --update` may write as the new expected output after showing the diff.
   */
  actual?: unknown;
}

/**
 * Runs mappings/<gateway>/fixtures/<mapping>/*.json against the compiled mappings. Shared by the test
 * suite and `routegate mappings check`. A case that asserts nothing, or a mapping with no case, fails.
 */
export async function runFixtures(dir: string = MAPPINGS_DIR, registry: MappingRegistry = loadMappings(dir), gateways?: readonly string[]): Promise<FixtureResult[]> {
  const results: FixtureResult[] = [];
  for (const [gateway, set] of registry) {
    if (gateways && !gateways.includes(gateway)) continue;
    for (const mapping of set.names()) {
      const fixtureDir = path.join(dir, gateway, 'fixtures', mapping);
      const files = fs.existsSync(fixtureDir) ? fs.readdirSync(fixtureDir).filter((f) => f.endsWith('.json')).sort() : [];
      if (files.length === 0) {
        results.push({ gateway, mapping, file: path.join(gateway, 'fixtures', mapping), ok: false, message: 'mapping has no fixtures' });
        continue;
      }
      for (const file of files) {
        const rel = path.join(gateway, 'fixtures', mapping, file);
        results.push({ gateway, mapping, file: rel, ...(await runCase(set, mapping, path.join(fixtureDir, file))) });
      }
    }
  }
  return results;
}

async function runCase(set: import('./loader').MappingSet, mapping: string, file: string): Promise<{ ok: boolean; message?: string; actual?: unknown }> {
  let fixture: FixtureCase;
  const text = fs.readFileSync(file, 'utf8');
  try {
    fixture = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `invalid JSON${jsonErrorPlace(text, (err as Error).message)}: ${(err as Error).message}` };
  }
  const hasExpected = Object.prototype.hasOwnProperty.call(fixture, 'expected');
  if (!hasExpected && fixture.error === undefined) return { ok: false, message: 'fixture asserts nothing (needs "expected" or "error")' };
  if (typeof fixture.description !== 'string' || fixture.description === '') return { ok: false, message: 'fixture needs a description' };
  try {
    const actual = await set.evaluate(mapping, fixture.input, fixture.bindings ?? {});
    if (fixture.error !== undefined) return { ok: false, message: `expected error ${fixture.error}, got ${JSON.stringify(actual)}` };
    const expected = JSON.parse(JSON.stringify(fixture.expected ?? null));
    if (!isDeepStrictEqual(actual ?? null, expected)) {
      return { ok: false, message: `expected and actual differ\n${jsonDiff(expected, alignKeys(actual ?? null, expected))}`, actual: actual ?? null };
    }
    return { ok: true };
  } catch (err) {
    if (fixture.error !== undefined && err instanceof MappingEvaluationError && err.message.includes(fixture.error)) return { ok: true };
    return { ok: false, message: (err as Error).message };
  }
}

/** ` at line L column C` of a JSON.parse error's `position N` in `text` (empty when the message names none). */
export function jsonErrorPlace(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m) return '';
  const before = text.slice(0, Number(m[1]));
  return ` at line ${before.split('\n').length} column ${Number(m[1]) - (before.lastIndexOf('\n') + 1) + 1}`;
}

/**
 * `actual` with its object keys in `expected`'s order (keys only `actual` has come after): key order means nothing to
 * the comparison, so the diff shows a changed value, never a key that merely moved as removed and added.
 */
export function alignKeys(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(actual)) return actual.map((v, i) => alignKeys(v, Array.isArray(expected) ? expected[i] : undefined));
  if (!actual || typeof actual !== 'object') return actual;
  const out: Record<string, unknown> = {};
  const a = actual as Record<string, unknown>;
  const e = expected && typeof expected === 'object' && !Array.isArray(expected) ? (expected as Record<string, unknown>) : {};
  for (const k of Object.keys(e)) if (Object.hasOwn(a, k)) out[k] = alignKeys(a[k], e[k]);
  for (const k of Object.keys(a)) if (!Object.hasOwn(out, k)) out[k] = alignKeys(a[k], undefined);
  return out;
}

/** Rewrite one fixture file's `expected` (its other keys and their order kept): `mappings check --update`. */
export function updateExpected(file: string, actual: unknown): void {
  const fixture = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  fixture.expected = alignKeys(actual, fixture.expected);
  fs.writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
}

/**
 * Expected vs actual as a unified diff of their indented JSON (`-` expected, `+` actual), two lines of context:
 * what a failing fixture shows, so the one wrong field is seen at once in a large object.
 */
export function jsonDiff(expected: unknown, actual: unknown): string {
  const pretty = (v: unknown) => `${JSON.stringify(v, null, 2) ?? 'undefined'}\n`;
  const patch = structuredPatch('expected', 'actual', pretty(expected), pretty(actual), '', '', { context: 2 });
  const out = ['--- expected', '+++ actual'];
  for (const h of patch.hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    out.push(...h.lines.filter((l) => !l.startsWith('\\')));
  }
  return out.join('\n');
}
