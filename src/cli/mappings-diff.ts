import fs from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { MAPPINGS_DIR } from '../lib/paths';
import { describeFolder, isShippedFolder } from '../mapping/completeness';
import { GATEWAY_IDS } from '../gateways/registry-ids';
import type { Io } from './io';

/** Every file RouteGate reads under one gateway folder (mappings, status.json, fixtures), relative to `root`. */
function filesOf(root: string, gateway: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const full = path.join(root, rel);
    if (!fs.existsSync(full)) return;
    for (const e of fs.readdirSync(full, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const child = path.join(rel, e.name);
      if (e.isDirectory()) walk(child);
      else if (e.isFile() && (e.name.endsWith('.jsonata') || e.name.endsWith('.json'))) out.push(child);
    }
  };
  walk(gateway);
  return out;
}

/**
 * `routegate mappings diff`: the operator's folder against the mappings this version ships, file by file: what an
 * upgrade changed in the shipped files (to carry into an edited copy) and what the operator changed. Exit 0.
 */
export function diffMappings(dir: string, io: Io, options: { gateways?: string[]; namesOnly?: boolean } = {}, shippedDir: string = MAPPINGS_DIR): number {
  io.out(`mappings folder: ${describeFolder(dir)}`);
  if (isShippedFolder(dir) && path.resolve(shippedDir) === path.resolve(MAPPINGS_DIR)) {
    io.out('nothing to compare: the folder in use is the one this version ships (set ROUTEGATE_MAPPINGS_DIR to your copy)');
    return 0;
  }
  io.out(`compared with: ${path.resolve(shippedDir)} (this version's mappings; "-" lines are this version's, "+" lines yours)`);
  let differ = 0;
  let onlyShipped = 0;
  let onlyYours = 0;
  for (const gateway of options.gateways ?? GATEWAY_IDS) {
    const files = [...new Set([...filesOf(shippedDir, gateway), ...filesOf(dir, gateway)])].sort();
    for (const rel of files) {
      const theirs = path.join(shippedDir, rel);
      const mine = path.join(dir, rel);
      if (!fs.existsSync(mine)) {
        onlyShipped++;
        io.out(`only in this version: ${rel} (copy it: cp ${theirs} ${path.dirname(mine)}/)`);
        continue;
      }
      if (!fs.existsSync(theirs)) {
        onlyYours++;
        io.out(`only in yours: ${rel}`);
        continue;
      }
      const a = fs.readFileSync(theirs, 'utf8');
      const b = fs.readFileSync(mine, 'utf8');
      if (a === b) continue;
      differ++;
      if (options.namesOnly) io.out(`differs: ${rel}`);
      else io.out(createTwoFilesPatch(`shipped/${rel}`, `yours/${rel}`, a, b, '', '', { context: 3 }).split('\n').slice(1).join('\n').trimEnd());
    }
  }
  io.out(`${differ} file${differ === 1 ? '' : 's'} differ, ${onlyShipped} only in this version, ${onlyYours} only in yours`);
  return 0;
}
