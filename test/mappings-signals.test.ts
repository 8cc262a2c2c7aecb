import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ROOT } from '../src/lib/paths';
import { copyMappings } from './helpers/wrong-unit';

// Issue 41, item 5: `npm start` makes the server the process signals reach: SIGHUP reloads the mappings, and
// SIGTERM to npm stops the server (it used to leave node listening).

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('npm start: SIGHUP reloads the mappings folder; SIGTERM to npm stops the server', { timeout: 120_000 }, async (t) => {
  const { dir, maps, cleanup } = copyMappings();
  t.after(cleanup);
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ROUTEGATE_MAPPINGS_DIR: maps, ROUTEGATE_DB: path.join(dir, 'rg.db'), ROUTEGATE_MASTER_KEY: 'a'.repeat(64), PORT: String(port), HOST: '127.0.0.1' };
  const npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    if (npm.exitCode === null) npm.kill('SIGKILL');
  });
  const lines: Array<Record<string, any>> = [];
  const waitFor = (re: RegExp) => new Promise<Record<string, any>>((resolve, reject) => {
    const found = lines.find((l) => re.test(l.msg));
    if (found) return resolve(found);
    const timer = setTimeout(() => reject(new Error(`no ${re} in ${JSON.stringify(lines.map((l) => l.msg))}`)), 60_000);
    const check = () => {
      const hit = lines.find((l) => re.test(l.msg));
      if (hit) {
        clearTimeout(timer);
        resolve(hit);
      } else setTimeout(check, 100);
    };
    check();
  });
  createInterface({ input: npm.stdout! }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line));
    } catch {
      // npm's own lines
    }
  });
  const listening = await waitFor(/Server listening/);
  const pid: number = listening.pid;
  assert.equal(typeof pid, 'number');
  const started = await waitFor(/^mappings: /);
  assert.equal(started.mappingsDir, maps, 'start-up logs the folder it reads');

  // An edit with its fixtures updated, then SIGHUP to the server.
  const file = path.join(maps, 'stripe', 'charge.request.jsonata');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("'rg_charge_id': chargeId,", "'rg_charge_id': chargeId, 'shop': 'loja-1',"));
  const update = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'routegate.js'), 'mappings', 'check', '--gateway', 'stripe', '--update'], { env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(update.status, 0, update.stdout);
  process.kill(pid, 'SIGHUP');
  const reloaded = await waitFor(/mappings reloaded on SIGHUP/);
  assert.notEqual(reloaded.reload.version, started.mappingsVersion);
  const ready = await (await fetch(`http://127.0.0.1:${port}/ready`)).json() as { mappingSet: { version: string } };
  assert.equal(ready.mappingSet.version, reloaded.reload.version);

  // SIGTERM to npm, as `docker stop` or a process manager sends it: the server itself stops.
  const exited = new Promise((resolve) => npm.once('exit', resolve));
  npm.kill('SIGTERM');
  await exited;
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(alive(pid), false, 'the node server stopped');
});
