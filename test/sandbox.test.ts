import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ROOT } from '../src/lib/paths';
import { DashboardClient } from './helpers/dashboard-client';

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

  // The printed dashboard URL and sign-ins work: the operator sees the demo account, its owner sees that charge.
  const text = lines.join('\n');
  assert.match(text, /signing secret:\s+whsec_[A-Za-z0-9+/]+=*\s/, "the demo account's webhook signing secret is shown");
  // The printed forward-URL command works as pasted.
  const patch = lines.find((l) => l.includes('-X PATCH'))!.trim();
  const patched = await fetch(/-X PATCH (\S+)/.exec(patch)![1], {
    method: 'PATCH', headers: Object.fromEntries([...patch.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [m[1], m[2]])), body: /-d '(.+)'$/.exec(patch)![1],
  });
  assert.equal(patched.status, 200, await patched.text());
  const dashboard = /dashboard:\s+(\S+)/.exec(text)![1];
  const [, opEmail, opPassword] = /operator:\s+(\S+)\s+password\s+(\S+)/.exec(text)!;
  const [, ownerEmail, ownerPassword] = /owner:\s+(\S+)\s+password\s+(\S+)/.exec(text)!;
  const base = dashboard.replace(/\/dashboard$/, '');
  const operator = new DashboardClient(base);
  assert.equal((await operator.login(opEmail, opPassword)).location, '/dashboard');
  assert.match((await operator.get('/dashboard/accounts')).text, /sandbox@routegate\.dev/);
  const owner = new DashboardClient(base);
  assert.equal((await owner.login(ownerEmail, ownerPassword)).location, '/dashboard');
  assert.match((await owner.get('/dashboard/charges')).text, new RegExp(json.data.id));
});

interface Running { child: ReturnType<typeof spawn>; lines: string[]; url: string; key: string }

/** `npm run sandbox` in `cwd`, up to the line that says it is ready. */
async function sandbox(cwd: string, env: Record<string, string> = {}, args: string[] = []): Promise<Running> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'sandbox', 'index.js'), ...args], {
    cwd, env: { PATH: process.env.PATH ?? '', PORT: '0', ROUTEGATE_EMULATOR_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not finish printing: ${lines.join('\n')}`)), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.startsWith('Press Ctrl+C')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  const text = lines.join('\n');
  return { child, lines, url: /service:\s+(\S+)/.exec(text)![1], key: /API key:\s+(tk_\w+)/.exec(text)![1] };
}

async function stop(r: Running): Promise<void> {
  if (r.child.exitCode !== null) return;
  const exited = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGTERM');
  await exited;
}

const me = (url: string, key: string) => fetch(`${url}/api/v1/clients/me`, { headers: { 'x-api-key': key } }).then((r) => r.status);

test('sandbox and CLI share ./data: runs keep the data and rotate the demo key; --reset empties it; a port in use is one line and exit 1', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-shared-'));
  const running: Running[] = [];
  t.after(async () => {
    for (const r of running) await stop(r);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const cli = (args: string[]) => spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 20_000 });

  const made = cli(['accounts', 'create', '--name', 'Loja CLI', '--email', 'cli@example.com']);
  assert.equal(made.status, 0, made.stderr);
  const cliKey = JSON.parse(made.stdout).apiKey;

  const first = await sandbox(dir);
  running.push(first);
  assert.ok(fs.existsSync(path.join(dir, 'data', 'routegate.db')), 'the default database is ./data/routegate.db');
  assert.match(first.lines.join('\n'), /database:\s+\S+routegate\.db/);
  assert.equal(await me(first.url, cliKey), 200, 'an account made with the CLI works in the sandbox');
  const charge = await (await fetch(`${first.url}/api/v1/charges`, {
    method: 'POST', headers: { 'x-api-key': first.key, 'content-type': 'application/json' },
    body: JSON.stringify({ paymentMethod: 'pix', amount: 1999, customer: { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909' } }),
  })).json() as any;
  assert.equal(charge.data.status, 'pending');

  // A second sandbox on the same service port: one line, exit 1, and the first one's data and key untouched.
  const port = new URL(first.url).port;
  const second = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'sandbox', 'index.js')], {
    cwd: dir, env: { PATH: process.env.PATH ?? '', PORT: port, ROUTEGATE_EMULATOR_PORT: '0' }, encoding: 'utf8', timeout: 20_000,
  });
  assert.equal(second.status, 1, second.stderr);
  assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
  assert.match(second.stderr, new RegExp(`:${port}: the address is already in use`));
  assert.doesNotMatch(second.stderr, /\n\s+at |EADDRINUSE/);
  assert.equal(await me(first.url, first.key), 200, 'the running sandbox keeps its key');

  // `npm start` on a port in use: the same one line.
  const server = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'server.js')], {
    cwd: dir, env: { PATH: process.env.PATH ?? '', PORT: port, HOST: '127.0.0.1', ROUTEGATE_LOG_LEVEL: 'warn' }, encoding: 'utf8', timeout: 20_000,
  });
  assert.equal(server.status, 1, server.stderr);
  assert.match(server.stderr, new RegExp(`^routegate: RouteGate cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use`, 'm'));
  assert.doesNotMatch(server.stderr, /\n\s+at /);

  await stop(first);
  const again = await sandbox(dir);
  running.push(again);
  assert.match(again.lines.join('\n'), /demo account from an earlier run/);
  assert.notEqual(again.key, first.key);
  assert.equal(await me(again.url, first.key), 401, 'the previous demo key is revoked');
  assert.equal(await me(again.url, cliKey), 200);
  const kept = await fetch(`${again.url}/api/v1/charges/${charge.data.id}`, { headers: { 'x-api-key': again.key } });
  assert.equal(kept.status, 200, 'the charge of the first run is still there');

  await stop(again);
  const reset = await sandbox(dir, {}, ['--reset']);
  running.push(reset);
  assert.equal(await me(reset.url, cliKey), 401, '--reset starts from an empty database');
  assert.equal(await me(reset.url, reset.key), 200);
  await stop(reset);

  const help = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'sandbox', 'index.js'), '--help'], { cwd: dir, encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--reset/);
  const bad = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'sandbox', 'index.js'), '--rest'], { cwd: dir, encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /Unknown option '--rest'/);
});
