import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { MAPPINGS_DIR, SCHEMAS_DIR } from '../src/lib/paths';
import { GATEWAY_IDS } from '../src/gateways/registry-ids';

// Every *.response fixture's expected output must be what the rest of RouteGate reads: a typo in a mapping's
// field name would otherwise pass its own fixture and be silently dropped at run time.
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const CONTRACTS: Record<string, string> = {
  'charge.response': 'charge-result.json',
  'customer.response': 'customer-result.json',
  'refund.response': 'refund-result.json',
  webhook: 'webhook-result.json',
};

for (const [mapping, schemaFile] of Object.entries(CONTRACTS)) {
  const validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'mappings', schemaFile), 'utf8')));
  test(`every ${mapping} fixture produces the normalized contract`, () => {
    let checked = 0;
    for (const gateway of GATEWAY_IDS) {
      const dir = path.join(MAPPINGS_DIR, gateway, 'fixtures', mapping);
      if (!fs.existsSync(dir)) continue;
      for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
        const fixture = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
        if (!('expected' in fixture)) continue;
        checked += 1;
        assert.ok(validate(fixture.expected), `${gateway}/${mapping}/${file}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    assert.ok(checked >= 5, `${mapping}: only ${checked} fixtures checked`);
  });
}
