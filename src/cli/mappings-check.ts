import { loadMappings } from '../mapping/loader';
import { runFixtures } from '../mapping/fixtures';
import type { Io } from './index';

/** `routegate mappings check`: compile, then run every fixture; one line per fixture, a summary, exit 1 on failure. */
export async function checkMappings(dir: string, io: Io): Promise<number> {
  const registry = loadMappings(dir);
  const results = await runFixtures(dir, registry);
  let failed = 0;
  for (const r of results) {
    if (!r.ok) failed++;
    io.out(`${r.ok ? 'ok  ' : 'FAIL'} ${r.file}${r.ok ? '' : `\n     ${r.message}`}`);
  }
  const files = [...registry.values()].reduce((n, set) => n + set.names().length, 0);
  io.out(`${files} mapping files compiled, ${results.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}
