import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { describeOtherCpu, otherProcessesCpu, processesCpu, type ProcessesCpu } from '../bench/machine-noise';

/**
 * A process named `name` that spins until it has used `busyMs` of CPU (however long the machine makes that take),
 * prints a line and waits to be killed: alive when the second reading is taken, as the machine's background tasks are.
 */
async function spinner(name: string, busyMs: number): Promise<ChildProcess> {
  const code = `process.title = ${JSON.stringify(name)}; const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };`
    + ` while (used() < ${busyMs}); console.log('done'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout!, 'data');
  return child;
}

test("the machine's other processes are counted by name, the bench's own left out", { skip: process.platform !== 'linux' }, async (t) => {
  const before = processesCpu();
  assert.ok(before.size > 1, 'reads every process of the machine');
  const other = await spinner('rg-noise-other', 300);
  const own = await spinner('rg-noise-own', 300);
  t.after(() => {
    other.kill();
    own.kill();
  });
  const after = processesCpu();
  const used = otherProcessesCpu(before, after, [process.pid, own.pid!], 100);
  const find = (name: string) => used.top.find((p) => p.name === name)?.ms ?? 0;
  // Started after the first reading, so it counts from its start: its whole spin (read in 10 ms clock ticks).
  assert.ok(find('rg-noise-other') >= 280, `the other spinner used ${find('rg-noise-other')} ms`);
  assert.equal(find('rg-noise-own'), 0, 'a process of the bench is not the machine\'s noise');
  assert.ok(used.ms >= find('rg-noise-other'));
  assert.deepEqual(used.top.map((p) => p.ms), [...used.top.map((p) => p.ms)].sort((x, y) => y - x), 'largest first');
});

test('only the CPU used between the two readings counts, summed by name', () => {
  const before: ProcessesCpu = new Map([
    [10, { name: 'kdamond.0', ms: 5_000, start: 1 }], [11, { name: 'postgres', ms: 100, start: 50 }], [12, { name: 'postgres', ms: 40, start: 60 }],
    [13, { name: 'beam.smp', ms: 70, start: 70 }],
  ]);
  const after: ProcessesCpu = new Map([
    [10, { name: 'kdamond.0', ms: 5_030, start: 1 }], [11, { name: 'postgres', ms: 104, start: 50 }], [12, { name: 'postgres', ms: 46, start: 60 }],
    // pid 13 exited and its number went to another process, pid 14 started in between: each counts from its start
    [13, { name: 'sh', ms: 2, start: 900 }], [14, { name: 'redis-server', ms: 3, start: 950 }], [15, { name: 'node', ms: 900, start: 20 }],
  ]);
  const used = otherProcessesCpu(before, after, [15], 2);
  assert.deepEqual(used, { ms: 45, top: [{ name: 'kdamond.0', ms: 30 }, { name: 'postgres', ms: 10 }] });
  assert.equal(describeOtherCpu(used), 'kdamond.0 30 ms, postgres 10 ms');
  assert.equal(describeOtherCpu(otherProcessesCpu(before, before, [])), 'none');
});

test("the kernel's workers are one name whichever queue they last served", { skip: process.platform !== 'linux' }, () => {
  const names = [...processesCpu().values()].map((p) => p.name);
  assert.ok(!names.some((n) => n.startsWith('kworker/')), 'no worker keeps its queue in its name');
  const workers = fs.readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).some((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('kworker/');
    } catch {
      return false;
    }
  });
  assert.equal(names.includes('kworker'), workers, 'the workers the kernel runs are read under the one name');
});
