import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { MIGRATIONS_DIR } from '../src/store/migrate';

// Migrations are applied by number and a number applied once is skipped after: two files sharing a number would
// leave one of them silently unapplied on every database that already ran the other.
test('every migration has its own number', () => {
  const files = fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql'));
  assert.ok(files.length > 5, 'the migrations were found');
  const byNumber = new Map<string, string[]>();
  for (const f of files) {
    assert.match(f, /^\d{3}-[\w-]+\.sql$/, `${f} is named NNN-name.sql`);
    byNumber.set(f.slice(0, 3), [...(byNumber.get(f.slice(0, 3)) ?? []), f]);
  }
  assert.deepEqual([...byNumber.values()].filter((names) => names.length > 1), []);
});
