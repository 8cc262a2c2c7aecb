import fs from 'node:fs';
import path from 'node:path';
import { MAPPINGS_DIR } from '../src/lib/paths';
import { loadMappings } from '../src/mapping/loader';
import type { FixtureCase } from '../src/mapping/fixtures';

/**
 * `npm run bench:mappings`: CPU of the two mapping evaluations every Pagar.me charge makes (`charge.request`,
 * `charge.response`), through `MappingSet.evaluate` as the adapter calls it, on their fixtures (cycled). The two
 * run in interleaved blocks, so a neighbour's load or a GC falls on both alike; the fastest block is the figure to
 * compare builds with (the least disturbed), the median shows how steady it was. A measuring tool: nothing here
 * ships in the service. `BENCH_BLOCKS` and `BENCH_BLOCK_SIZE` change the run's length.
 */
const MAPPINGS = ['charge.request', 'charge.response'];
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 40);
const BLOCK_SIZE = Number(process.env.BENCH_BLOCK_SIZE ?? 2000);

function fixtures(mapping: string): FixtureCase[] {
  const dir = path.join(MAPPINGS_DIR, 'pagarme', 'fixtures', mapping);
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as FixtureCase)
    .filter((c) => c.error === undefined);
}

async function main(): Promise<void> {
  const set = loadMappings(MAPPINGS_DIR, ['pagarme']).get('pagarme')!;
  const cases = new Map(MAPPINGS.map((m) => [m, fixtures(m)]));
  const times = new Map<string, number[]>(MAPPINGS.map((m) => [m, []]));
  for (let block = 0; block < BLOCKS; block++) {
    for (const mapping of MAPPINGS) {
      const list = cases.get(mapping)!;
      const start = process.hrtime.bigint();
      for (let i = 0; i < BLOCK_SIZE; i++) {
        const c = list[i % list.length];
        await set.evaluate(mapping, c.input, c.bindings);
      }
      times.get(mapping)!.push(Number(process.hrtime.bigint() - start) / 1000 / BLOCK_SIZE);
    }
  }
  for (const mapping of MAPPINGS) {
    // The first blocks are V8 warming up (interpreted, then optimized code): left out of the median.
    const settled = times.get(mapping)!.slice(Math.floor(BLOCKS / 4)).sort((a, b) => a - b);
    const fastest = Math.min(...times.get(mapping)!);
    const median = settled[Math.floor(settled.length / 2)];
    console.log(`pagarme/${mapping.padEnd(16)} fastest ${fastest.toFixed(2)} µs  median ${median.toFixed(2)} µs per evaluation (${cases.get(mapping)!.length} fixtures, ${BLOCKS} blocks of ${BLOCK_SIZE})`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
