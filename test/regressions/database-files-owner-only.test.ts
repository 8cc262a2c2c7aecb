import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore as openStore } from '../../src/store';
import { loadConfig } from '../../src/config';

// The SQLite file and its -wal/-shm siblings were created with the process umask (0644 by default): any local
// user could read sealed credentials, charges and stored answers. master.key already was 0600.

const mode = (f: string) => fs.statSync(f).mode & 0o777;
const skip = process.platform === 'win32' ? 'POSIX modes only' : false;

test('the database file and its -wal and -shm siblings are created 0600, as is master.key', { skip }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-mode-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'data', 'routegate.db');
  const config = loadConfig({ ROUTEGATE_DB: file, ROUTEGATE_LOG_LEVEL: 'silent' });
  assert.equal(config.masterKeySource, 'file');
  const store = openStore(file);
  try {
    store.db.prepare('CREATE TABLE IF NOT EXISTS mode_probe (x)').run();
    store.db.prepare('INSERT INTO mode_probe VALUES (1)').run();
    for (const f of [file, `${file}-wal`, `${file}-shm`, path.join(dir, 'data', 'master.key')]) {
      assert.equal(mode(f).toString(8), '600', f);
    }
  } finally {
    await store.close();
  }
});

test('a database file left world-readable by an older install is narrowed to 0600 when opened', { skip }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-mode-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'routegate.db');
  await openStore(file).close();
  fs.chmodSync(file, 0o644);
  const store = openStore(file);
  await store.close();
  assert.equal(mode(file).toString(8), '600');
});
