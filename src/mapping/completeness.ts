import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { MAPPINGS_DIR } from '../lib/paths';
import { GATEWAY_IDS } from '../gateways/registry-ids';

// THE completeness rule of a mappings folder, one function used by `routegate mappings check`, by start-up and by
// a reload, so the three never disagree: every mapping this version ships is there with its fixtures and its
// status.json, and nothing in the folder goes unread without a word. Each problem says which file to copy where.

/** The generator's template folder ships beside the gateways and is never served. */
const TEMPLATE = 'template';

export interface Completeness {
  /** The folder read, absolute. */
  dir: string;
  /** Missing or unknown files: start-up refuses, the check fails. One line each, with what to do. */
  problems: string[];
  /** Gateways the folder has no folder for: not served (GET /ready answers 503 while one is missing). */
  unserved: string[];
}

const ignored = (name: string) => name.startsWith('.') || /\.md$/i.test(name);
const list = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).filter((e) => !ignored(e.name)) : []);
const jsonataNames = (dir: string) => list(dir).filter((e) => e.isFile() && e.name.endsWith('.jsonata')).map((e) => e.name.slice(0, -'.jsonata'.length)).sort();

/** Whether `dir` is the folder this version ships (then nothing is compared with it). */
export function isShippedFolder(dir: string): boolean {
  return path.resolve(dir) === path.resolve(MAPPINGS_DIR);
}

/** Where the folder came from, for the line both the check and start-up print. */
export function describeFolder(dir: string): string {
  return isShippedFolder(dir)
    ? `${path.resolve(dir)} (the folder this version ships; set ROUTEGATE_MAPPINGS_DIR to use your own)`
    : `${path.resolve(dir)} (ROUTEGATE_MAPPINGS_DIR)`;
}

/**
 * Every problem of `dir` against the folder this version ships (`shippedDir`), for `gateways` (`only`: the gateway
 * folders to look into, `mappings check --gateway`). A folder identical to the shipped one has none.
 */
export function checkCompleteness(
  dir: string, gateways: readonly string[] = GATEWAY_IDS, shippedDir: string = MAPPINGS_DIR, only: readonly string[] = gateways,
): Completeness {
  const root = path.resolve(dir);
  const shipped = path.resolve(shippedDir);
  const problems: string[] = [];
  const unserved: string[] = [];
  const known = new Set([...gateways, TEMPLATE]);
  for (const e of list(root)) {
    if (!known.has(e.name)) problems.push(`${path.join(root, e.name)}: not read: RouteGate reads only the gateway folders ${gateways.join(', ')} (a misspelled folder?)`);
  }
  for (const gateway of only) {
    const mine = path.join(root, gateway);
    const theirs = path.join(shipped, gateway);
    if (!fs.existsSync(mine)) {
      unserved.push(gateway);
      continue;
    }
    const compare = root !== shipped && fs.existsSync(theirs);
    const names = jsonataNames(mine);
    const shippedNames = compare ? jsonataNames(theirs) : names;
    for (const name of shippedNames.filter((n) => !names.includes(n))) {
      problems.push(`${path.join(mine, `${name}.jsonata`)} is missing: this version ships it; copy it with its fixtures: cp ${path.join(theirs, `${name}.jsonata`)} ${mine}/ && mkdir -p ${path.join(mine, 'fixtures')} && cp -r ${path.join(theirs, 'fixtures', name)} ${path.join(mine, 'fixtures')}/`);
    }
    if (compare) {
      for (const name of names.filter((n) => !shippedNames.includes(n))) {
        problems.push(`${path.join(mine, `${name}.jsonata`)}: not read: no adapter uses a mapping named ${name} (this version's ${gateway} mappings: ${shippedNames.join(', ')}); a misspelled name?`);
      }
    }
    if (!fs.existsSync(path.join(mine, 'status.json'))) {
      problems.push(`${path.join(mine, 'status.json')} is missing: every gateway status would be unknown; copy it: cp ${path.join(theirs, 'status.json')} ${mine}/`);
    }
    for (const e of list(mine)) {
      if (e.isFile() && (e.name.endsWith('.jsonata') || e.name === 'status.json')) continue;
      if (e.isDirectory() && e.name === 'fixtures') continue;
      problems.push(`${path.join(mine, e.name)}: not read: a gateway folder holds <mapping>.jsonata files, status.json and fixtures/`);
    }
    const fixtures = path.join(mine, 'fixtures');
    for (const name of names.filter((n) => shippedNames.includes(n) || !compare)) {
      const cases = list(path.join(fixtures, name)).filter((e) => e.isFile() && e.name.endsWith('.json'));
      if (cases.length > 0) continue;
      const source = path.join(theirs, 'fixtures', name);
      problems.push(`${path.join(fixtures, name)}/ has no fixtures: ${name}.jsonata is run against none; ${fs.existsSync(source) ? `copy them: mkdir -p ${fixtures} && cp -r ${source} ${fixtures}/` : 'add one (docs/mappings.md, "Fixtures")'}`);
    }
    for (const e of list(fixtures)) {
      if (!e.isDirectory()) {
        problems.push(`${path.join(fixtures, e.name)}: not read: fixtures go in fixtures/<mapping>/<case>.json`);
        continue;
      }
      // A shipped mapping that is missing is named above, with its fixtures.
      if (!names.includes(e.name) && shippedNames.includes(e.name)) continue;
      if (!names.includes(e.name)) {
        problems.push(`${path.join(fixtures, e.name)}/: not read: there is no ${e.name}.jsonata (fixture folders are named after their mapping; a misspelled folder?)`);
        continue;
      }
      for (const f of list(path.join(fixtures, e.name))) {
        if (!(f.isFile() && f.name.endsWith('.json'))) problems.push(`${path.join(fixtures, e.name, f.name)}: not read: fixture files end in .json`);
      }
    }
  }
  return { dir: root, problems, unserved };
}

/**
 * The version of a mapping set: a hash of every file RouteGate reads from `dir` (mappings, status tables, fixtures),
 * the same for two folders with the same contents. /ready and /metrics report it, so two instances can be compared.
 */
export function folderVersion(dir: string, gateways: readonly string[] = GATEWAY_IDS): string {
  const hash = createHash('sha256');
  const walk = (folder: string, rel: string) => {
    for (const e of list(folder).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(folder, e.name);
      if (e.isDirectory()) walk(full, `${rel}${e.name}/`);
      else if (e.isFile() && (e.name.endsWith('.jsonata') || e.name.endsWith('.json'))) {
        hash.update(`${rel}${e.name}\0`);
        hash.update(fs.readFileSync(full));
        hash.update('\0');
      }
    }
  };
  for (const g of gateways) walk(path.join(dir, g), `${g}/`);
  return hash.digest('hex').slice(0, 12);
}
