import { SQLITE_ONLY } from './helpers/test-db';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { ROOT } from '../src/lib/paths';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';
import { startService } from './helper';

// The docs a new user reads point only at files that are in the repository, each has its reader, and what
// docs/operations.md tells an operator to run works.

function markdownFiles(): string[] {
  const out = [path.join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.name.endsWith('.md')) out.push(path.join(dir, e.name));
    }
  };
  walk(path.join(ROOT, 'docs'));
  return out;
}

/** GitHub's anchor for a heading. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\s-]/g, '').replace(/\s/g, '-');
const anchors = (file: string) => new Set(fs.readFileSync(file, 'utf8').split('\n').filter((l) => /^#+ /.test(l)).map((l) => slug(l.replace(/^#+ /, ''))));

// Written by a command, never committed (see .gitignore).
const GENERATED = new Set(['bench/results.json', 'bench/scale-results.json']);

test('docs link and name only files that exist in the repository, never the spec kept outside it', () => {
  const problems: string[] = [];
  for (const file of markdownFiles()) {
    const rel = path.relative(ROOT, file);
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/.test(target)) continue;
      const [p, anchor] = target.split('#');
      const resolved = p ? path.resolve(path.dirname(file), p) : file;
      if (!fs.existsSync(resolved)) problems.push(`${rel}: link to missing ${target}`);
      else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) problems.push(`${rel}: no heading for #${anchor} in ${p || rel}`);
    }
    for (const m of text.matchAll(/`((?:src|test|docs|mappings|schemas|bench|bin|\.ci)\/[^`\s]*)`/g)) {
      if (GENERATED.has(m[1])) continue;
      // `mappings/<gateway>/...` stands for each gateway; a glob needs only its folder.
      const candidates = m[1].includes('<gateway>') ? GATEWAY_IDS.map((g) => m[1].replace(/<gateway>/g, g)) : [m[1]];
      for (const c of candidates) {
        const concrete = c.split(/[*<{]/)[0].replace(/\/[^/]*$/, (last) => (c.includes('*') || c.includes('<') || c.includes('{') ? '' : last));
        if (!fs.existsSync(path.join(ROOT, concrete))) problems.push(`${rel}: names ${m[1]}, but ${concrete} is not in the repository`);
      }
    }
    for (const m of text.matchAll(/\b(SPEC\.md|DESIGN\.md|shared\/[\w/.<>-]+)/g)) problems.push(`${rel}: names ${m[1]}, which is not in the repository`);
  }
  assert.deepEqual(problems, []);
});

test('docs/operations.md covers backups, probes, metrics and log fields; docs/configuration.md every variable the code reads', () => {
  const operations = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  for (const needle of ['ROUTEGATE_MASTER_KEY', 'ROUTEGATE_METRICS_TOKEN', '.backup', '/metrics', '/ready', 'reqId', 'msg', 'routegate_gateway_attempts_total']) {
    assert.ok(operations.includes(needle), `docs/operations.md mentions ${needle}`);
  }
  const configuration = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const config = fs.readFileSync(path.join(ROOT, 'src', 'config.ts'), 'utf8');
  for (const name of new Set([...config.matchAll(/'(ROUTEGATE_[A-Z_]+)'/g)].map((m) => m[1]))) {
    assert.ok(configuration.includes(`| \`${name}\``) || configuration.includes(`\`${name}\`,`), `${name} is in docs/configuration.md's table`);
  }
});

test('README is the front door: a few screens, the two commands, and a link to the doc of each reader', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length < 250, `README.md has ${readme.split('\n').length} lines`);
  for (const command of ['npm ci && npm run sandbox', 'npm ci && npm test']) assert.ok(readme.includes(command), command);
  for (const doc of ['docs/api.md', 'docs/configuration.md', 'docs/operations.md', 'docs/architecture.md', 'docs/performance.md', 'docs/development.md']) {
    assert.ok(readme.includes(`](${doc}`), `README links ${doc}`);
  }
  assert.ok(fs.readFileSync(path.join(ROOT, 'docs', 'performance.md'), 'utf8').split('\n').length <= 200, 'docs/performance.md reads in five minutes');
});

test('the backup commands in docs/operations.md give a consistent copy while the service runs', { skip: SQLITE_ONLY }, async () => {
  const svc = await startService();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-backup-'));
  try {
    const { id } = await svc.createAccount('Loja Backup', 'backup@example.com');
    const target = path.join(dir, 'routegate.db');
    const node = spawnSync(process.execPath, ['-e', "require('better-sqlite3')(process.argv[1]).backup(process.argv[2]).then(() => console.log('ok'))", svc.dbPath, target], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    assert.equal(node.stdout.trim(), 'ok', node.stderr);
    const copy = new Database(target, { readonly: true });
    assert.equal((copy.prepare('SELECT id FROM accounts WHERE id = ?').get(id) as { id: string }).id, id);
    copy.close();
    if (spawnSync('sh', ['-c', 'command -v sqlite3']).status === 0) {
      const shell = spawnSync('sqlite3', [svc.dbPath, `.backup '${path.join(dir, 'shell.db')}'`], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(shell.status, 0, shell.stderr);
      const copy2 = new Database(path.join(dir, 'shell.db'), { readonly: true });
      assert.ok(copy2.prepare('SELECT id FROM accounts WHERE id = ?').get(id));
      copy2.close();
    }
    assert.equal((await svc.call('GET', '/ready')).status, 200, 'the service is untouched');
  } finally {
    await svc.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
