import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import madge from 'madge';
import { GATEWAYS } from '../src/gateways/registry';
import { ROOT } from '../src/lib/paths';
import { capabilityMarkdown, CAPABILITY_TABLE_START, CAPABILITY_TABLE_END } from '../src/gateways/capability-docs';

// Issue 10: one folder per gateway, derived lists, no import cycles.

const SRC = path.join(ROOT, 'src');

async function graph(): Promise<Record<string, string[]>> {
  const res = await madge(SRC, { fileExtensions: ['ts'], tsConfig: path.join(ROOT, 'tsconfig.json') });
  return res.obj();
}

test('src/ has no import cycles, type-only imports included', async () => {
  const res = await madge(SRC, { fileExtensions: ['ts'], tsConfig: path.join(ROOT, 'tsconfig.json') });
  assert.deepEqual(res.circular(), []);
});

test('nothing a gateway folder loads reaches back to the registry (it loads the folders)', async () => {
  const deps = await graph();
  for (const g of GATEWAYS) {
    const seen = new Set<string>();
    const stack = [`gateways/${g.id}/index.ts`];
    while (stack.length) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      stack.push(...(deps[file] ?? []));
    }
    assert.ok(seen.size > 1, `${g.id}: its folder was read`);
    assert.ok(!seen.has('gateways/registry.ts'), `${g.id} reaches the registry`);
  }
});

test('no gateway is named outside its own folder and the registry in src/ and schemas/', () => {
  const names = GATEWAYS.flatMap((g) => [g.id, g.name, ...g.aliases.filter((a) => !/^gateway_\d+$/.test(a))]);
  const pattern = new RegExp(`\\b(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`, 'i');
  const own = GATEWAYS.map((g) => path.join(SRC, 'gateways', g.id) + path.sep);
  const allowed = (file: string) => own.some((dir) => file.startsWith(dir)) || file === path.join(SRC, 'gateways', 'registry.ts');
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (!allowed(file)) {
        fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
          if (pattern.test(line)) offenders.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim().slice(0, 120)}`);
        });
      }
    }
  };
  walk(SRC);
  walk(path.join(ROOT, 'schemas'));
  assert.deepEqual(offenders, []);
});

test("docs/api.md's capability tables are the ones the registry generates", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
  const start = readme.indexOf(CAPABILITY_TABLE_START);
  const end = readme.indexOf(CAPABILITY_TABLE_END);
  assert.ok(start >= 0 && end > start, 'docs/api.md has the generated block');
  assert.equal(readme.slice(start + CAPABILITY_TABLE_START.length, end).trim(), capabilityMarkdown().trim(),
    'docs/api.md is stale: paste the output of `npx routegate docs capabilities`');
});
