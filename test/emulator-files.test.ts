import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/lib/paths';
import { GATEWAYS } from '../src/gateways/registry';

// Issue 10 item 4: a gateway's emulator is the thin part (routes and shapes) on the shared core in
// src/sandbox/core; every file of it stays under 300 lines and none reaches an adapter or src/charges.

const SRC = path.join(ROOT, 'src');
const CORE = path.join(SRC, 'sandbox', 'core');
const MAX_LINES = 300;

/** src/gateways/<id>/emulator.ts and its emulator-*.ts companions, for every registered gateway. */
function emulatorFiles(id: string): string[] {
  const folder = path.join(SRC, 'gateways', id);
  return fs.readdirSync(folder).filter((f) => /^emulator(-[a-z0-9-]+)?\.ts$/.test(f)).map((f) => path.join(folder, f));
}

const coreFiles = () => fs.readdirSync(CORE).filter((f) => f.endsWith('.ts')).map((f) => path.join(CORE, f));
const lineCount = (file: string) => fs.readFileSync(file, 'utf8').trimEnd().split('\n').length;
const rel = (file: string) => path.relative(ROOT, file);

/** Relative imports of a file, resolved to .ts files; `runtimeOnly` leaves out `import type` / `export type`. */
function importsOf(file: string, runtimeOnly: boolean): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
    if (!(runtimeOnly && m[2])) specs.push(m[3]);
  }
  for (const m of text.matchAll(/(?:require|import)\(\s*'([^']+)'\s*\)/g)) specs.push(m[1]);
  return specs.filter((s) => s.startsWith('.')).map((s) => resolveTs(path.resolve(path.dirname(file), s))).filter((f): f is string => !!f);
}

function resolveTs(base: string): string | undefined {
  return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
}

const forbidden = (file: string) =>
  /^src\/gateways\/[^/]+\/adapter\.ts$/.test(rel(file).split(path.sep).join('/')) || rel(file).startsWith(path.join('src', 'charges') + path.sep);

/** Every file reachable from `start` through runtime imports, with the chain that reached it. */
function reachable(start: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[start, [rel(start)]]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of importsOf(file, true)) {
      if (seen.has(next)) continue;
      seen.set(next, [...seen.get(file)!, rel(next)]);
      queue.push(next);
    }
  }
  return seen;
}

describe('emulator files', () => {
  test('every registered gateway has an emulator in its own folder, built on the shared core', () => {
    for (const g of GATEWAYS) {
      const files = emulatorFiles(g.id);
      assert.ok(files.some((f) => path.basename(f) === 'emulator.ts'), `src/gateways/${g.id}/emulator.ts exists`);
      const core = path.join(CORE, 'index.ts');
      assert.ok(files.some((f) => importsOf(f, true).includes(core)), `${g.id}'s emulator imports src/sandbox/core`);
    }
  });

  test('every emulator file and every core file is under 300 lines', () => {
    const files = [...GATEWAYS.flatMap((g) => emulatorFiles(g.id)), ...coreFiles()];
    const long = files.map((f) => ({ file: rel(f), lines: lineCount(f) })).filter((f) => f.lines >= MAX_LINES);
    assert.deepEqual(long, [], `files of ${MAX_LINES} lines or more: ${long.map((f) => `${f.file} (${f.lines})`).join(', ')}`);
  });

  test('no emulator file imports an adapter or anything under src/charges, directly or through what it imports', () => {
    for (const g of GATEWAYS) {
      for (const file of emulatorFiles(g.id)) {
        const direct = importsOf(file, false).filter(forbidden);
        assert.deepEqual(direct.map(rel), [], `${rel(file)} imports ${direct.map(rel).join(', ')}`);
        for (const [reached, chain] of reachable(file)) {
          assert.ok(!forbidden(reached), `${rel(file)} reaches ${rel(reached)}: ${chain.join(' -> ')}`);
        }
      }
    }
  });

  test('the check catches an adapter import', () => {
    // The emulator files never import an adapter, so show on the descriptor (which does) that the walk finds one.
    const index = path.join(SRC, 'gateways', GATEWAYS[0].id, 'index.ts');
    assert.ok([...reachable(index).keys()].some(forbidden), 'the descriptor reaches its adapter');
  });
});
