import fs from 'node:fs';
import path from 'node:path';

// `npm run new-gateway -- <id>`: a sixth gateway from the template (docs/adding-a-gateway.md), in the spirit of
// Hyperswitch's add_connector.sh. Copies src/gateways/template/ and mappings/template/ to <id>, renaming
// template/Template/TEMPLATE in names and contents, and adds the one registry line. Touches no other file.

export const TEMPLATE_ID = 'template';
const REGISTRY = path.join('src', 'gateways', 'registry.ts');
/** A canonical id: lower-case letters and digits (it becomes a folder, a URL segment, ROUTEGATE_<ID>_URL and identifiers). */
const ID = /^[a-z][a-z0-9]{1,29}$/;

export class NewGatewayError extends Error {}

export interface NewGatewayResult {
  gateway: string;
  /** Files written, relative to the root. */
  files: string[];
  /** The line added to src/gateways/registry.ts. */
  registryLine: string;
}

export function newGateway(root: string, id: string, name = id.charAt(0).toUpperCase() + id.slice(1)): NewGatewayResult {
  if (!ID.test(id)) throw new NewGatewayError(`gateway id must be lower-case letters and digits, starting with a letter (2-30 characters): got "${id}"`);
  if (id === TEMPLATE_ID) throw new NewGatewayError('"template" is the folder the generator copies; choose another id');
  const registryFile = path.join(root, REGISTRY);
  if (!fs.existsSync(registryFile)) throw new NewGatewayError(`${REGISTRY} not found under ${root}: run this from the RouteGate folder`);
  const pairs = [path.join('src', 'gateways'), 'mappings'].map((parent) => ({ from: path.join(parent, TEMPLATE_ID), to: path.join(parent, id) }));
  for (const { from, to } of pairs) {
    if (!fs.existsSync(path.join(root, from))) throw new NewGatewayError(`${from} not found: the template is missing`);
    if (fs.existsSync(path.join(root, to))) throw new NewGatewayError(`${to} already exists`);
  }

  const registry = fs.readFileSync(registryFile, 'utf8');
  const updated = addRegistryLine(registry, id);

  const rename = (text: string) => text.replaceAll(TEMPLATE_ID, id).replaceAll('Template', name).replaceAll('TEMPLATE', id.toUpperCase());
  const files: string[] = [];
  for (const { from, to } of pairs) {
    for (const rel of walk(path.join(root, from))) {
      const target = path.join(to, rename(rel));
      fs.mkdirSync(path.dirname(path.join(root, target)), { recursive: true });
      fs.writeFileSync(path.join(root, target), rename(fs.readFileSync(path.join(root, from, rel), 'utf8')));
      files.push(target);
    }
  }
  fs.writeFileSync(registryFile, updated.text);
  return { gateway: id, files, registryLine: updated.line };
}

/** The registry with `'<id>',` added as the last line of the FOLDERS list. */
export function addRegistryLine(source: string, id: string): { text: string; line: string } {
  const lines = source.split('\n');
  const start = lines.findIndex((l) => /^const FOLDERS = \[\s*$/.test(l));
  const end = start < 0 ? -1 : lines.findIndex((l, i) => i > start && /^\];\s*$/.test(l));
  if (end < 0) throw new NewGatewayError(`${REGISTRY}: no "const FOLDERS = [" list with one gateway per line`);
  const listed = lines.slice(start + 1, end).map((l) => /^\s*'([^']+)',\s*$/.exec(l)?.[1]);
  if (listed.includes(id)) throw new NewGatewayError(`${id} is already registered`);
  const line = `  '${id}',`;
  lines.splice(end, 0, line);
  return { text: lines.join('\n'), line };
}

function walk(dir: string, prefix = ''): string[] {
  return fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap((e) => {
    const rel = path.join(prefix, e.name);
    return e.isDirectory() ? walk(dir, rel) : [rel];
  });
}

const USAGE = 'usage: npm run new-gateway -- <id> [--name "Display Name"]   (run from the RouteGate folder)';

export function main(argv: string[], io = { out: (s: string) => process.stdout.write(`${s}\n`), err: (s: string) => process.stderr.write(`${s}\n`) }): number {
  const args = [...argv];
  let name: string | undefined;
  const at = args.indexOf('--name');
  if (at >= 0) [, name] = args.splice(at, 2);
  if (args.length !== 1 || args[0].startsWith('-') || (at >= 0 && !name)) {
    io.err(USAGE);
    return 2;
  }
  try {
    const result = newGateway(process.cwd(), args[0], name);
    io.out(JSON.stringify(result));
    io.err([
      `${result.gateway}: written ${result.files.length} files and registered it in ${REGISTRY}.`,
      'Next (docs/adding-a-gateway.md): npm run build, then fill the adapter, the mappings and the emulator routes from the',
      `gateway's docs, keeping its fixtures and capabilities honest; npm test runs the conformance suite on ${result.gateway}.`,
    ].join('\n'));
    return 0;
  } catch (err) {
    if (!(err instanceof NewGatewayError)) throw err;
    io.err(`new-gateway: ${err.message}`);
    return 1;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
