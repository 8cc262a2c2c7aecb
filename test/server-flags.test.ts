import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../src/lib/server-flags';
import { ROOT } from '../src/lib/paths';

test('npm start, the Dockerfile and the bench run the service with the same Node flags', () => {
  const start = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
  const cmd = /^CMD (\[.*\])$/m.exec(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
  assert.ok(cmd, 'the Dockerfile has a CMD in exec form');
  // `exec`: the shell npm runs the script in becomes node, so the server is the process SIGTERM reaches.
  assert.deepEqual(start.split(/\s+/), ['exec', 'node', ...SERVER_NODE_FLAGS, 'dist/src/server.js']);
  assert.deepEqual(JSON.parse(cmd), ['node', ...SERVER_NODE_FLAGS, 'dist/src/server.js']);
  assert.match(fs.readFileSync(path.join(ROOT, 'bench', 'routegate-process.ts'), 'utf8'), /\[\.\.\.SERVER_NODE_FLAGS, \.\.\.profile, path\.join\(ROOT, 'dist', 'src', 'server\.js'\)\]/);
});
