import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startService, expectError, type Service } from './helper';
import {
  ERRORS, PUBLIC_CODES, SPEC_ERROR_CODES, RouteGateError, envelope, retryOf, rgError, type ErrorCode, type ErrorKey,
} from '../src/errors';
import { ROOT } from '../src/lib/paths';

let svc: Service;
let key: string;
before(async () => {
  svc = await startService({ ROUTEGATE_BODY_LIMIT: '2048' });
  key = (await svc.createAccount()).apiKey;
});
after(() => svc.close());

const DOC = path.join(ROOT, 'docs', 'errors.md');
const CATALOGUE = Object.entries(ERRORS) as Array<[ErrorKey, (typeof ERRORS)[ErrorKey]]>;

/** Every .ts file under src/ but the catalogue itself, with its text. */
function sources(): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && p !== path.join(ROOT, 'src', 'errors.ts')) out.push({ file: path.relative(ROOT, p), text: fs.readFileSync(p, 'utf8') });
    }
  };
  walk(path.join(ROOT, 'src'));
  return out;
}

/**
 * Where src/ makes a public error: the first argument of every rgError( and .extend( call (each must name its key
 * literally, so this scan sees all of them), and the code of every RouteGateError.restore( that names one.
 */
function madeInSource() {
  const keys = new Map<string, string>();
  const restored = new Map<string, string>();
  const problems: string[] = [];
  for (const { file, text } of sources()) {
    const lineOf = (i: number) => `${file}:${text.slice(0, i).split('\n').length}`;
    for (const m of text.matchAll(/\b(rgError|\.extend|RouteGateError\.restore)\(\s*([^,)]*)/g)) {
      const literals = [...m[2].matchAll(/'([A-Z][A-Z0-9_]*)'/g)].map((x) => x[1]);
      // a restored code comes from the database; the constructor refuses one that is not public
      if (literals.length === 0 && m[1] !== 'RouteGateError.restore') problems.push(`${lineOf(m.index)}: ${m[1]}(${m[2]}...) does not name its key literally`);
      for (const l of literals) (m[1] === 'RouteGateError.restore' ? restored : keys).set(l, lineOf(m.index));
    }
    for (const m of text.matchAll(/new RouteGateError\(/g)) problems.push(`${lineOf(m.index)}: new RouteGateError( outside src/errors.ts; use rgError()`);
    // Emulators answer as the gateways they imitate (Pagar.me's own `success: false`), not as RouteGate.
    const emulator = /(^|\/)(sandbox\/|emulator)/.test(file.split(path.sep).join('/').replace(/^src\//, ''));
    for (const m of emulator ? [] : text.matchAll(/success: false/g)) problems.push(`${lineOf(m.index)}: an error envelope built by hand; use envelope()`);
  }
  return { keys, restored, problems };
}

test('the public codes hold every SPEC.md error code with its status', () => {
  const spec: Record<string, number> = {
    VALIDATION_ERROR: 400, MISSING_API_KEY: 401, INVALID_API_KEY: 401, GATEWAY_AUTH_ERROR: 401, CLIENT_INACTIVE: 403, NOT_FOUND: 404,
    MISSING_CREDENTIALS: 400, GATEWAY_UNSUPPORTED_OPERATION: 422, RATE_LIMIT_EXCEEDED: 429, GATEWAY_ERROR: 502,
    GATEWAY_UNREACHABLE: 502, GATEWAY_TIMEOUT: 504,
  };
  assert.deepEqual([...SPEC_ERROR_CODES].sort(), Object.keys(spec).sort());
  for (const [code, status] of Object.entries(spec)) assert.equal(PUBLIC_CODES[code as ErrorCode].status, status, code);
  assert.equal(PUBLIC_CODES.GATEWAY_AUTH_ERROR.altStatus, 403);
});

test('every catalogue entry maps to a public code and its template is filled by its parameters', () => {
  for (const [key, spec] of CATALOGUE) {
    assert.ok(spec.code === 'inherit' || Object.hasOwn(PUBLIC_CODES, spec.code), `${key}: ${spec.code} is not a public code`);
    assert.match(key, /^[A-Z][A-Z0-9_]*$/, key);
    const names = [...spec.message.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const params = Object.fromEntries(names.map((n) => [n, `<${n}>`]));
    const message = spec.code === 'inherit'
      ? rgError('NOT_FOUND').extend(key as 'NO_FALLBACK', params as never).message
      : rgError(key as 'CHARGE_NOT_FOUND', params as never).message;
    assert.doesNotMatch(message, /\{\w+\}|undefined/, `${key}: ${message}`);
    for (const n of names) assert.ok(message.includes(`<${n}>`) || (spec.code === 'inherit' && n === 'reason'), `${key}: {${n}} not rendered`);
  }
});

test('a situation answers with its code, status, parameters and field details', () => {
  const err = rgError('REFUND_AMOUNT_TOO_LARGE', { amount: 900, refundable: 500 });
  assert.equal(err.code, 'VALIDATION_ERROR');
  assert.equal(err.key, 'REFUND_AMOUNT_TOO_LARGE');
  assert.equal(err.statusCode, 400);
  assert.equal(err.message, 'Refund amount 900 is larger than the refundable 500');
  assert.deepEqual(err.details, { errors: [{ field: 'amount', message: 'must be <= 500' }] });
  const skip = rgError('CARD_TOKEN_NOT_PORTABLE', { owner: 'stripe', gateway: 'pagarme' }, { gateway: 'pagarme' });
  const wrapped = skip.extend('NO_FALLBACK', { others: 'asaas (MISSING_CREDENTIALS)' });
  assert.equal(wrapped.code, 'GATEWAY_UNSUPPORTED_OPERATION');
  assert.equal(wrapped.statusCode, 422);
  assert.equal(wrapped.gateway, 'pagarme');
  assert.equal(wrapped.message, 'the card token belongs to stripe and cannot be charged on pagarme; no fallback could take the charge: asaas (MISSING_CREDENTIALS)');
  assert.equal(rgError('GATEWAY_REJECTED_CREDENTIALS', { gateway: 'stripe', reason: 'no' }, { status: 403 }).statusCode, 403);
  assert.throws(() => rgError('CHARGE_NOT_FOUND', { id: 'x' }, { status: 500 }), /cannot answer 500/);
});

test('every catalogue entry is made somewhere in src/', () => {
  const { keys } = madeInSource();
  const unused = CATALOGUE.map(([k]) => k).filter((k) => !keys.has(k));
  assert.deepEqual(unused, [], 'catalogue entries no code in src/ makes: remove them, or use them');
});

test('every error src/ makes is in the catalogue, and nothing else makes one', () => {
  const { keys, restored, problems } = madeInSource();
  assert.deepEqual(problems, []);
  for (const [k, where] of keys) assert.ok(Object.hasOwn(ERRORS, k), `${where}: ${k} is not in the catalogue (src/errors.ts)`);
  for (const [c, where] of restored) assert.ok(Object.hasOwn(PUBLIC_CODES, c), `${where}: ${c} is not a public code`);
  // and at run time, whatever the scan missed (a code read from the database, a cast):
  assert.throws(() => RouteGateError.restore('NO_SUCH_CODE' as ErrorCode, 'x'), /not a public error code/);
});

/** The HTTP cell of a code's row: its status, and the alternative it may carry. */
const httpCell = (code: ErrorCode) => {
  const spec: { status: number; altStatus?: number } = PUBLIC_CODES[code];
  return spec.altStatus ? `${spec.status} / ${spec.altStatus}` : String(spec.status);
};

/** docs/errors.md's table of situations, as the catalogue says it. */
function situationsTable(): string {
  const rows = CATALOGUE.map(([k, spec]) => {
    const code = spec.code === 'inherit' ? '(the skipped gateway\'s)' : spec.code;
    const status = spec.code === 'inherit' ? '(same)' : httpCell(spec.code);
    return `| ${k} | ${code} | ${status} | ${retryOf(k) ?? '(same)'} | ${spec.message} |`;
  });
  return ['| situation | code | HTTP | retry | message |', '|---|---|---|---|---|', ...rows].join('\n');
}

test('docs/errors.md documents every public code with the catalogue\'s status and retry', () => {
  const doc = fs.readFileSync(DOC, 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim().replace(/\*\*/g, ''));
    if (cells.length === 4 && /^[A-Z_]+$/.test(cells[0])) rows.set(cells[0], cells);
  }
  assert.deepEqual([...rows.keys()].sort(), Object.keys(PUBLIC_CODES).sort(), 'one row per public code in the table of codes');
  for (const [code, [, http, , retry]] of rows) {
    assert.equal(http, httpCell(code as ErrorCode), `${code}: HTTP`);
    assert.equal(retry, PUBLIC_CODES[code as ErrorCode].retry, `${code}: retry`);
  }
});

test('docs/errors.md lists every catalogue entry as the catalogue declares it', () => {
  const doc = fs.readFileSync(DOC, 'utf8');
  const start = '<!-- situations: generated from src/errors.ts; test/errors.test.ts prints it -->';
  const end = '<!-- /situations -->';
  assert.ok(doc.includes(start) && doc.includes(end), `docs/errors.md needs the markers ${start} and ${end}`);
  const current = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end)).trim();
  const expected = situationsTable();
  assert.equal(current, expected, `paste this between the markers in docs/errors.md:\n${expected}\n`);
});

test('details are hidden in production and gateway is carried on gateway errors', () => {
  const err = rgError('DECLINED', { declineCode: 'card_declined', reason: 'Your card was declined.' }, { gateway: 'stripe', details: { errors: [] } });
  assert.deepEqual(envelope(err, true), { success: false, error: { code: 'GATEWAY_ERROR', message: 'card_declined: Your card was declined.', gateway: 'stripe' } });
  assert.ok(envelope(err, false).error.details);
});

test('an unknown route is 404 NOT_FOUND in the envelope', async () => {
  expectError(await svc.call('GET', '/api/v1/nothing-here', { key }), 'NOT_FOUND', 404);
  expectError(await svc.call('GET', '/nothing'), 'NOT_FOUND', 404);
});

test('a wrong method is 405 with an Allow header', async () => {
  const res = await svc.call('PUT', '/api/v1/clients/me', { key });
  expectError(res, 'METHOD_NOT_ALLOWED', 405);
  assert.equal(res.headers.allow, 'GET');
});

test('malformed JSON is 400 VALIDATION_ERROR', async () => {
  const res = await svc.call('PATCH', '/api/v1/clients/settings', { key, rawBody: '{"responseFormat": ', headers: { 'content-type': 'application/json' } });
  expectError(res, 'VALIDATION_ERROR', 400);
  assert.match(res.body.error.message, /not valid JSON/);
});

test('an unsupported content type is 415', async () => {
  const res = await svc.call('PATCH', '/api/v1/clients/settings', { key, rawBody: 'responseFormat=raw', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expectError(res, 'UNSUPPORTED_MEDIA_TYPE', 415);
});

test('a body over the configured limit is 413', async () => {
  const res = await svc.call('PATCH', '/api/v1/clients/settings', { key, body: { webhookForwardUrl: `https://x.example.com/${'a'.repeat(4000)}` } });
  expectError(res, 'PAYLOAD_TOO_LARGE', 413);
});

test('schema failures carry details.errors outside production and only code and message in production', async () => {
  const dev = await svc.call('PATCH', '/api/v1/clients/settings', { key, body: { responseFormat: 1 } });
  expectError(dev, 'VALIDATION_ERROR', 400);
  assert.deepEqual(dev.body.error.details.errors[0].field, 'responseFormat');
  const prod = await startService({ NODE_ENV: 'production' });
  try {
    const k = (await prod.createAccount()).apiKey;
    const res = await prod.call('PATCH', '/api/v1/clients/settings', { key: k, body: { responseFormat: 1 } });
    expectError(res, 'VALIDATION_ERROR', 400);
    assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'message']);
  } finally {
    await prod.close();
  }
});

test('errors carry a request id header', async () => {
  const res = await svc.call('GET', '/api/v1/clients/me');
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
});
