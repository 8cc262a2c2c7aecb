import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { PUBLIC_CODES, type ErrorCode } from '../src/errors';
import { loadMappings, type MappingSet } from '../src/mapping/loader';
import { MAPPINGS_DIR } from '../src/lib/paths';
import { DECLINE_CODES } from '../src/gateways/common';
import { declineCodeOf } from '../src/gateways/asaas/adapter';

// Issue 11 (compatibility mode): every RouteGate error is answered in the compat gateway's own shape by
// mappings/<id>/native.error. A public code the mapping forgets must fail here, not reach a client as an
// undefined status or body.

const CHARGE = { id: 'chg_contract', status: 'failed' };

/** One input per public code at its own status, plus the variants that take other branches (fields, declines). */
function inputs(): Array<{ label: string; input: Record<string, unknown> }> {
  const out: Array<{ label: string; input: Record<string, unknown> }> = (Object.keys(PUBLIC_CODES) as ErrorCode[]).flatMap((code) => {
    const base = { status: PUBLIC_CODES[code].status, code, message: `${code} happened` };
    const alt = 'altStatus' in PUBLIC_CODES[code] ? [{ label: `${code} (alt status)`, input: { ...base, status: (PUBLIC_CODES[code] as { altStatus: number }).altStatus } }] : [];
    return [{ label: code, input: base }, ...alt];
  });
  out.push(
    { label: 'VALIDATION_ERROR with fields', input: { status: 400, code: 'VALIDATION_ERROR', message: 'm', fields: [{ field: 'amount', message: 'is required' }, { field: 'some.unknown[0].field', message: 'is invalid' }, { field: '(body)', message: 'must be an object' }] } },
    { label: 'GATEWAY_UNSUPPORTED_OPERATION with a field', input: { status: 422, code: 'GATEWAY_UNSUPPORTED_OPERATION', message: 'm', fields: [{ field: 'creditCard.token', message: 'is not portable' }] } },
  );
  for (const declineCode of [...DECLINE_CODES, 'not_a_known_code']) {
    out.push({ label: `decline ${declineCode} without charge`, input: { status: 502, code: 'GATEWAY_ERROR', message: `${declineCode}: no`, declineCode, chargeId: 'chg_contract' } });
    out.push({ label: `decline ${declineCode} with charge`, input: { status: 502, code: 'GATEWAY_ERROR', message: `${declineCode}: no`, declineCode, chargeId: 'chg_contract', charge: CHARGE } });
  }
  return out;
}

/** What is wrong with a gateway's native.error over every input; empty when each answer is a usable native error. */
async function problemsOf(set: MappingSet): Promise<string[]> {
  const problems: string[] = [];
  for (const { label, input } of inputs()) {
    let out: { status?: unknown; body?: unknown } | undefined;
    try {
      out = await set.evaluate('native.error', input);
    } catch (err) {
      problems.push(`${set.gateway} ${label}: ${(err as Error).message}`);
      continue;
    }
    const status = out?.status;
    const body = out?.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) problems.push(`${set.gateway} ${label}: body is ${JSON.stringify(body)}, not an object`);
    if (typeof status !== 'number' || !Number.isInteger(status)) {
      problems.push(`${set.gateway} ${label}: status is ${JSON.stringify(status)}, not an integer`);
    } else if (status < 400 || status > 599) {
      // Only a decline with its charge may be answered as the created resource (Pagar.me 200, Mercado Pago and PagBank 201).
      const createdResource = input.charge !== undefined && (status === 200 || status === 201);
      if (!createdResource) problems.push(`${set.gateway} ${label}: status ${status} is not an error status`);
      else if (!isDeepStrictEqual(body, input.charge)) problems.push(`${set.gateway} ${label}: a ${status} must answer the charge itself`);
    }
  }
  return problems;
}

test('every native.error mapping answers every public code with an integer error status and an object body', async () => {
  const registry = loadMappings();
  const gateways = [...registry.values()].filter((set) => set.has('native.error'));
  assert.ok(gateways.length >= 4, `only ${gateways.map((s) => s.gateway).join(', ')} have native.error`);
  const problems = (await Promise.all(gateways.map(problemsOf))).flat();
  assert.deepEqual(problems, []);
});

test('the contract check fails on a native.error that leaves a public code unhandled', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rg-native-error-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'pagarme'));
  fs.writeFileSync(path.join(dir, 'pagarme', 'native.error.jsonata'), "code = 'CHARGE_BUSY' ? undefined : code = 'NOT_FOUND' ? {'status': 404} : {'status': status, 'body': {'message': message}}");
  const problems = await problemsOf(loadMappings(dir, ['pagarme']).get('pagarme')!);
  assert.ok(problems.some((p) => p.startsWith('pagarme CHARGE_BUSY: body is undefined')), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('pagarme NOT_FOUND: body is undefined')), problems.join('\n'));
});

test('an Asaas decline answered in compat mode reads back as the same decline code', async () => {
  const set = loadMappings(MAPPINGS_DIR, ['asaas']).get('asaas')!;
  for (const declineCode of DECLINE_CODES) {
    const out = await set.evaluate<{ status: number; body: { errors: Array<{ code: string; description: string }> } }>('native.error', {
      status: 502, code: 'GATEWAY_ERROR', message: `${declineCode}: no`, declineCode,
    });
    assert.equal(out.status, 400);
    assert.equal(out.body.errors[0].code, 'invalid_creditCard');
    assert.equal(declineCodeOf(out.body.errors[0].description), declineCode, out.body.errors[0].description);
  }
});
