import { loadMappings, MappingLoadError } from '../mapping/loader';
import { runFixtures } from '../mapping/fixtures';
import type { Io } from './io';

const indent = (text: string) => text.split('\n').map((l) => `     ${l}`).join('\n');

/**
 * `routegate mappings check`: compile every file (all syntax and status.json problems at once, each as
 * file:line:column with the line), then run every fixture; a failure shows expected vs actual as a diff.
 */
export async function checkMappings(dir: string, io: Io): Promise<number> {
  let registry;
  try {
    registry = loadMappings(dir);
  } catch (err) {
    if (!(err instanceof MappingLoadError)) throw err;
    for (const p of err.problems) io.out(`FAIL ${p}`);
    io.out(`${err.problems.length} mapping file problem${err.problems.length === 1 ? '' : 's'}; fixtures not run`);
    return 1;
  }
  const results = await runFixtures(dir, registry);
  let failed = 0;
  for (const r of results) {
    if (!r.ok) failed++;
    io.out(`${r.ok ? 'ok  ' : 'FAIL'} ${r.file}${r.ok ? '' : `\n${indent(r.message ?? '')}`}`);
  }
  // Which engine serves each file: compiled to JavaScript, or the jsonata interpreter and why.
  let interpreted = 0;
  for (const [gateway, set] of registry) {
    for (const [name, engine] of set.engines()) {
      if (engine.engine === 'interpreter') interpreted++;
      io.out(`${engine.engine === 'compiled' ? 'js  ' : 'interp'} ${gateway}/${name}${engine.engine === 'interpreter' ? ` (${engine.reason})` : ''}`);
    }
  }
  const files = [...registry.values()].reduce((n, set) => n + set.names().length, 0);
  io.out(`${files} mapping files compiled (${files - interpreted} to JavaScript, ${interpreted} on the interpreter), ${results.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}
