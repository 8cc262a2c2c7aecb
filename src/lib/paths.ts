import path from 'node:path';
import fs from 'node:fs';

// Compiled code runs from dist/src/..., sources from src/...; walk up to the folder holding package.json
// so mappings/ and schemas/ resolve the same way in both.
function findRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${start}`);
    dir = parent;
  }
  return dir;
}

export const ROOT = findRoot(__dirname);
export const MAPPINGS_DIR = path.join(ROOT, 'mappings');
export const SCHEMAS_DIR = path.join(ROOT, 'schemas');
