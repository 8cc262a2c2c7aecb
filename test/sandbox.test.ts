import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ROOT } from '../src/lib/paths';

// `npm run sandbox` as a user runs it: the process prints a key and a curl command, and that command works.

test('npm run sandbox prints an API key and a pix curl that works when pasted', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-sandbox-'));
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'sandbox', 'index.js')], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', ROUTEGATE_EMULATOR_PORT: '0', ROUTEGATE_DB: path.join(dir, 'sandbox.db') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => {
    child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not finish printing: ${lines.join('\n')}`)), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('Press Ctrl+C')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });

  const key = /API key:\s+(tk_[A-Za-z0-9]{32,})/.exec(lines.join('\n'))?.[1];
  assert.ok(key, 'an API key is printed');
  const curl = lines.find((l) => l.trim().startsWith('curl '))!.trim();
  assert.ok(curl.includes(key), 'the curl carries the printed key');

  // Parse the printed command the way a shell would see it and send exactly that request.
  const url = /-X POST (\S+)/.exec(curl)![1];
  const headers = Object.fromEntries([...curl.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [m[1], m[2]]));
  const body = /-d '(.+)'$/.exec(curl)![1];
  const res = await fetch(url, { method: 'POST', headers, body });
  const json = await res.json() as any;
  assert.equal(res.status, 201, JSON.stringify(json));
  assert.equal(json.data.paymentMethod, 'pix');
  assert.equal(json.data.status, 'pending');
  assert.equal(json.data.gateway, 'pagarme', 'the demo account charges its primary gateway');
  assert.ok(json.data.pixCopyPaste && json.data.pixQrCode);

  // The printed follow-up: the payer pays, and the refreshed charge is approved.
  const payLine = lines.find((l) => l.includes('/__control/pay'))!.trim().replace('<externalId>', json.data.externalId);
  const payUrl = /-X POST (\S+)/.exec(payLine)![1];
  const paid = await fetch(payUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: /-d '(.+)'$/.exec(payLine)![1] });
  assert.equal(paid.status, 200, await paid.text());
  const refreshUrl = /curl -s '([^']+)'/.exec(lines.find((l) => l.includes('refresh=true'))!)![1].replace('<id>', json.data.id);
  const refreshed = await (await fetch(refreshUrl, { headers: { 'x-api-key': key } })).json() as any;
  assert.equal(refreshed.data.status, 'approved');

  // And pasted verbatim into a shell, where curl exists.
  if (spawnSync('sh', ['-c', 'command -v curl']).status === 0) {
    const pasted = spawnSync('sh', ['-c', curl], { encoding: 'utf8', timeout: 10_000 });
    assert.equal(pasted.status, 0, pasted.stderr);
    assert.equal(JSON.parse(pasted.stdout).data.status, 'pending');
  }
});
