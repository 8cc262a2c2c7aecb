import fs from 'node:fs';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/**
 * `node dist/bench/profile-top.js <file.cpuprofile> [n=10]`: the n frames with the most self time in a V8 CPU
 * profile (`node --cpu-prof`, or BENCH_PROFILE=dir npm run bench), as a Markdown table for docs/performance.md.
 */
export function topFrames(file: string, n = 10): Array<{ frame: string; selfMs: number; share: number }> {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFrame = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^.*\/(node_modules\/|dist\/)/, '$1')}:${lineNumber + 1}` : '';
    const frame = `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + (self.get(node.id) ?? 0));
  }
  byFrame.delete('(idle)');
  const total = [...byFrame.values()].reduce((a, b) => a + b, 0);
  return [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([frame, us]) => ({ frame, selfMs: Math.round(us / 100) / 10, share: Math.round((us / total) * 1000) / 10 }));
}

if (require.main === module) {
  const [file, n] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/profile-top.js <file.cpuprofile> [n=10]\n');
    process.exit(2);
  }
  process.stdout.write('| # | frame (self time) | ms | % of busy samples |\n|---|---|---|---|\n');
  topFrames(file, Number(n ?? 10)).forEach((f, i) => process.stdout.write(`| ${i + 1} | \`${f.frame}\` | ${f.selfMs} | ${f.share} |\n`));
}
