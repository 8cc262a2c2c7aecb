import fs from 'node:fs';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number }

/**
 * `node dist/bench/profile-stalls.js <file.cpuprofile> [ms=4]`: the stretches of a V8 CPU profile where the thread
 * was busy without a break for longer than `ms`, with the stacks that took most of each. At a paced load (requests
 * far apart) a long busy stretch is what the slowest requests waited behind: a scavenge, a blocking syscall, a
 * COMMIT.
 */
export function stalls(file: string, thresholdMs = 4): Array<{ atSeconds: number; ms: number; top: Array<{ stack: string; ms: number }> }> {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = (id: number): string => {
    const frames: string[] = [];
    for (let cur: number | undefined = id; cur !== undefined && frames.length < 5; cur = parent.get(cur)) {
      const { functionName, url, lineNumber } = byId.get(cur)!.callFrame;
      frames.push(`${functionName || '(anonymous)'}${url ? ` ${url.replace(/^.*\/(node_modules\/|dist\/)/, '$1')}:${lineNumber + 1}` : ''}`);
    }
    return frames.join(' < ');
  };
  const found: Array<{ atSeconds: number; ms: number; top: Array<{ stack: string; ms: number }> }> = [];
  let t = profile.startTime;
  let start: number | undefined;
  let busy: Array<[number, number]> = [];
  const close = () => {
    if (start !== undefined && t - start > thresholdMs * 1000) {
      const byStack = new Map<string, number>();
      for (const [id, us] of busy) byStack.set(stackOf(id), (byStack.get(stackOf(id)) ?? 0) + us);
      const top = [...byStack].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([stack, us]) => ({ stack, ms: Math.round(us / 100) / 10 }));
      found.push({ atSeconds: Math.round((start - profile.startTime) / 10_000) / 100, ms: Math.round((t - start) / 100) / 10, top });
    }
    start = undefined;
    busy = [];
  };
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    if (byId.get(id)!.callFrame.functionName === '(idle)') return close();
    start ??= t;
    busy.push([id, profile.timeDeltas[i] ?? 0]);
  });
  close();
  return found;
}

if (require.main === module) {
  const [file, ms] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/profile-stalls.js <file.cpuprofile> [ms=4]\n');
    process.exit(2);
  }
  for (const s of stalls(file, Number(ms ?? 4))) {
    process.stdout.write(`at ${s.atSeconds} s: busy ${s.ms} ms\n${s.top.map((x) => `   ${x.ms} ms  ${x.stack}\n`).join('')}`);
  }
}
