import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAPPINGS_DIR } from '../../src/lib/paths';
import { loadMappings } from '../../src/mapping/loader';
import type { GatewayId } from '../../src/gateways/registry-ids';

// An operator's edit that issue 41 found charged silently: a charge.request sending reais where the gateway wants
// cents (or cents where it wants reais), with its fixtures rewritten to agree, so that only the money guard stands
// between the edit and the gateway.

/** The one-line edit per gateway: [what the shipped file says, what the operator wrote]. */
export const WRONG_UNIT: Record<GatewayId, [string, string]> = {
  pagarme: ["'amount': $c.amount,", "'amount': $toMajor($c.amount),"],
  stripe: ["'amount': charge.amount,", "'amount': $toMajor(charge.amount),"],
  asaas: ["'value': $toMajor($c.amount),", "'value': $c.amount,"],
  mercadopago: ["'transaction_amount': $toMajor($c.amount),", "'transaction_amount': $c.amount,"],
  pagbank: ['$value := $toGateway($c.amount);', "$value := $toUnit($c.amount, 'major');"],
};

/** The field the guard names for each edit. */
export const WRONG_FIELD: Record<GatewayId, RegExp> = {
  pagarme: /items\[\*\]\.amount/, stripe: /\bamount\b/, asaas: /\bvalue\b/, mercadopago: /transaction_amount/, pagbank: /unit_amount|amount\.value/,
};

export function copyMappings(): { dir: string; maps: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-guard-'));
  const maps = path.join(dir, 'mappings');
  fs.cpSync(MAPPINGS_DIR, maps, { recursive: true });
  return { dir, maps, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Apply the wrong-unit edit to `gateways` in `maps`, and rewrite their charge.request fixtures to what the edit renders. */
export async function editToWrongUnit(maps: string, gateways: GatewayId[]): Promise<void> {
  for (const g of gateways) {
    const file = path.join(maps, g, 'charge.request.jsonata');
    const [from, to] = WRONG_UNIT[g];
    const source = fs.readFileSync(file, 'utf8');
    if (!source.includes(from)) throw new Error(`${file} no longer says ${from}`);
    fs.writeFileSync(file, source.replace(from, to));
  }
  const registry = loadMappings(maps);
  for (const g of gateways) {
    const set = registry.get(g)!;
    const fixtures = path.join(maps, g, 'fixtures', 'charge.request');
    for (const name of fs.readdirSync(fixtures)) {
      const full = path.join(fixtures, name);
      const fixture = JSON.parse(fs.readFileSync(full, 'utf8'));
      if (fixture.error !== undefined) continue;
      // What the operator sees the edited mapping produce (the interpreter, without the guard): the fixtures agree.
      const { value, error } = await set.evaluateWith('interpreter', 'charge.request', fixture.input, fixture.bindings ?? {});
      if (error) continue;
      fixture.expected = value;
      fs.writeFileSync(full, `${JSON.stringify(fixture, null, 2)}\n`);
    }
  }
}
