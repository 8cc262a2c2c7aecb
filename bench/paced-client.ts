import { spawn } from 'node:child_process';
import { pacedLatency, type LatencyResult, type PacedTarget } from './latency';

interface PacedRun { target: PacedTarget; ratePerSec: number; durationSec: number; warmupSec: number }

/**
 * A paced run in a fresh process of its own. The bench's process has just driven autocannon at saturation, and its
 * collections of that garbage landed in the latencies it then measured: a memory-reducing Mark-Compact paused it for
 * 50 ms in one paced run, five requests in a row, charged to whichever target was being measured.
 */
export function pacedLatencyApart(target: PacedTarget, ratePerSec: number, durationSec: number, warmupSec: number): Promise<LatencyResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [__filename], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { err += chunk; });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(out) as LatencyResult);
      else reject(new Error(`the paced client exited with ${code}: ${err.trim().split('\n')[0]}`));
    });
    // The run (with the target's API key) goes over stdin, not the command line other processes can read.
    child.stdin.end(JSON.stringify({ target, ratePerSec, durationSec, warmupSec } satisfies PacedRun));
  });
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const run = JSON.parse(input) as PacedRun;
  process.stdout.write(JSON.stringify(await pacedLatency(run.target, run.ratePerSec, run.durationSec, run.warmupSec)));
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
