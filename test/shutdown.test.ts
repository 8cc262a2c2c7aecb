import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT } from '../src/lib/paths';

test('SIGTERM finishes the request in flight, then closes the database and exits 0', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-shutdown-'));
  // PORT=0: the server reports the port it got over IPC (src/server.ts), so no other process can take it first.
  const env = { PATH: process.env.PATH ?? '', ROUTEGATE_DB: path.join(dir, 'rg.db'), ROUTEGATE_MASTER_KEY: 'f'.repeat(64), PORT: '0', HOST: '127.0.0.1', ROUTEGATE_LOG_LEVEL: 'warn' };
  const created = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), 'accounts', 'create', '--name', 'Loja', '--email', 'l@example.com'], { env, encoding: 'utf8' });
  const { apiKey } = JSON.parse(created.stdout);
  const server = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  try {
    // Start-up runs every mapping fixture first: on a loaded machine that takes a while.
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('server did not listen within 30 s')), 30_000);
      server.on('message', (m: { routegate?: string; port?: number }) => {
        if (m?.routegate === 'listening') {
          clearTimeout(timer);
          resolve(m.port!);
        }
      });
      void exited.then((code) => reject(new Error(`server exited during start-up (code ${code})`)));
    });
    server.disconnect();
    for (let i = 0; ; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
      if (ok) break;
      // Start-up runs every mapping fixture first: on a loaded machine that takes a while.
      if (i > 300) throw new Error('server did not start within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const body = JSON.stringify({ responseFormat: 'normalized' });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'PATCH', path: '/api/v1/clients/settings', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      // Half the body now; the rest only after SIGTERM: the request is in flight during shutdown.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    const res = await response;
    assert.equal(res.status, 200, res.text);
    assert.equal(JSON.parse(res.text).data.responseFormat, 'normalized');
    assert.equal(await exited, 0);
    assert.equal(fs.existsSync(path.join(dir, 'rg.db-wal')), false, 'the database was closed (WAL checkpointed and removed)');
    await assert.rejects(fetch(`http://127.0.0.1:${port}/health`), 'no longer listening');
  } finally {
    server.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
