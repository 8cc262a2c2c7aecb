import fs from 'node:fs';
import { loadMappings } from '../mapping/loader';
import { MappingAmountError, type AmountDeclaration } from '../mapping/amount-guard';
import { describeFolder } from '../mapping/completeness';
import { jsonErrorPlace } from '../mapping/fixtures';
import { parseWireSettings } from '../gateways/wire';
import { GATEWAY_IDS } from '../gateways/registry-ids';
import type { Io } from './io';

/** A JSON file, or a failure message naming its line and column. */
function readJson(file: string): { value?: unknown; error?: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { error: `cannot read ${file}: ${(err as Error).message}` };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: `${file}: invalid JSON${jsonErrorPlace(text, (err as Error).message)}: ${(err as Error).message}` };
  }
}

const isFixture = (v: unknown): v is { input: unknown; bindings?: Record<string, unknown> } =>
  !!v && typeof v === 'object' && Object.hasOwn(v, 'input') && ['expected', 'error', 'description'].some((k) => Object.hasOwn(v, k));

/**
 * `routegate mappings render <gateway>/<name> --input file.json`: what a mapping produces for a sample input (or a
 * fixture file's input), through the money guard as a real request would be. The deployment's wire settings give
 * the bindings the adapter would pass (a unit that is a deployment setting, $amountUnit); --bindings adds or overrides some.
 */
export async function renderMapping(dir: string, target: string, inputFile: string, io: Io, bindingsFile?: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [gateway, name, ...rest] = target.split('/');
  if (!gateway || !name || rest.length || !GATEWAY_IDS.includes(gateway)) {
    io.err(`routegate: name the mapping as <gateway>/<name>, e.g. ${GATEWAY_IDS[0]}/charge.request (gateways: ${GATEWAY_IDS.join(', ')})`);
    return 1;
  }
  const mapping = name.replace(/\.jsonata$/, '');
  const set = loadMappings(dir, [gateway]).get(gateway)!;
  if (!set.has(mapping)) {
    io.err(`routegate: ${gateway} has no mapping ${mapping} in ${dir} (it has: ${set.names().join(', ')})`);
    return 1;
  }
  const read = readJson(inputFile);
  if (read.error) {
    io.err(`routegate: ${read.error}`);
    return 1;
  }
  let input = read.value;
  let bindings: Record<string, unknown> = {};
  if (isFixture(input)) {
    bindings = { ...(input.bindings ?? {}) };
    input = input.input;
  } else {
    bindings = { ...wireBindings(set.amounts, env) };
  }
  if (bindingsFile) {
    const extra = readJson(bindingsFile);
    if (extra.error) {
      io.err(`routegate: ${extra.error}`);
      return 1;
    }
    bindings = { ...bindings, ...(extra.value as Record<string, unknown>) };
  }
  io.err(`mappings folder: ${describeFolder(dir)}`);
  try {
    const out = await set.evaluate(mapping, input, bindings);
    io.out(JSON.stringify(out ?? null, null, 2));
    if (set.amounts?.requests[mapping]) io.err(`money guard: the amounts of ${gateway}/${mapping} are the operation's`);
    return 0;
  } catch (err) {
    io.err(`routegate: ${err instanceof MappingAmountError ? `refused by the money guard: ${err.message}` : (err as Error).message}`);
    return 1;
  }
}

/** The bindings the adapter passes from the deployment's settings (the unit of a gateway whose unit is a setting). */
function wireBindings(amounts: AmountDeclaration | undefined, env: NodeJS.ProcessEnv): Record<string, unknown> {
  if (!amounts || typeof amounts.unit === 'string') return {};
  return { [amounts.unit.binding]: amounts.unit.fromWire(parseWireSettings(env)) };
}
