import path from 'node:path';
import { loadMappings, MappingLoadError } from '../mapping/loader';
import { runFixtures, updateExpected } from '../mapping/fixtures';
import { checkCompleteness, describeFolder } from '../mapping/completeness';
import { GATEWAY_IDS } from '../gateways/registry-ids';
import type { Io } from './io';

const indent = (text: string) => text.split('\n').map((l) => `     ${l}`).join('\n');

export interface CheckOptions {
  /** Only these gateways (default: every registered one). */
  gateways?: string[];
  /** Print every fixture and every file's engine, not only the failures. */
  verbose?: boolean;
  /** Rewrite the expected output of each fixture whose mapping ran and passed the money guard, after its diff. */
  update?: boolean;
}

/**
 * `routegate mappings check`: the folder it reads; the completeness rule (the one start-up applies: every shipped
 * mapping with its fixtures and status.json, nothing unread); every file compiled (all syntax and status.json
 * problems at once, each as file:line:column with the line); then every fixture, through the money guard. Failures
 * only unless --verbose, and one summary line. Exit 0 only when nothing failed.
 */
export async function checkMappings(dir: string, io: Io, options: CheckOptions = {}): Promise<number> {
  const gateways = options.gateways ?? [...GATEWAY_IDS];
  io.out(`mappings folder: ${describeFolder(dir)}`);
  const scope = options.gateways ? ` (${gateways.join(', ')})` : '';
  const completeness = checkCompleteness(dir, GATEWAY_IDS, undefined, gateways);
  for (const p of completeness.problems) io.out(`FAIL ${p}`);
  for (const g of completeness.unserved) io.out(`note ${path.join(completeness.dir, g)}/ does not exist: ${g} is not served (GET /ready answers 503); copy the folder this version ships to serve it`);
  let registry;
  try {
    registry = loadMappings(dir, gateways);
  } catch (err) {
    if (!(err instanceof MappingLoadError)) throw err;
    for (const p of err.problems) io.out(`FAIL ${p}`);
    const n = err.problems.length;
    const folder = completeness.problems.length ? `, ${completeness.problems.length} folder problem${completeness.problems.length === 1 ? '' : 's'}` : '';
    io.out(`${n} mapping file problem${n === 1 ? '' : 's'}${folder}${scope}; fixtures not run`);
    return 1;
  }
  const results = await runFixtures(dir, registry, gateways);
  let failed = 0;
  let updated = 0;
  for (const r of results) {
    if (r.ok) {
      if (options.verbose) io.out(`ok   ${r.file}`);
      continue;
    }
    io.out(`FAIL ${r.file}\n${indent(r.message ?? '')}`);
    if (options.update && r.actual !== undefined) {
      updateExpected(path.join(dir, r.file), r.actual);
      io.out(`     updated: ${r.file} now expects what the mapping produces (the diff above)`);
      updated++;
      continue;
    }
    failed++;
  }
  // Which engine serves each file: compiled to JavaScript, or the jsonata interpreter and why.
  let interpreted = 0;
  for (const [gateway, set] of registry) {
    for (const [name, engine] of set.engines()) {
      if (engine.engine === 'interpreter') interpreted++;
      if (options.verbose || engine.engine === 'interpreter') {
        io.out(`${engine.engine === 'compiled' ? 'js  ' : 'interp'} ${gateway}/${name}${engine.engine === 'interpreter' ? ` (${engine.reason})` : ''}`);
      }
    }
  }
  const files = [...registry.values()].reduce((n, set) => n + set.names().length, 0);
  const folderProblems = completeness.problems.length;
  io.out([
    `${files} mapping files compiled${scope} (${files - interpreted} to JavaScript, ${interpreted} on the interpreter)`,
    ...(folderProblems ? [`${folderProblems} folder problem${folderProblems === 1 ? '' : 's'}`] : []),
    ...(updated ? [`${updated} fixture${updated === 1 ? '' : 's'} updated`] : []),
    `${results.filter((r) => r.ok).length} passed, ${failed} failed`,
  ].join(', '));
  return failed === 0 && folderProblems === 0 ? 0 : 1;
}
