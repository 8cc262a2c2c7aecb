import { test } from 'node:test';
import assert from 'node:assert/strict';
import { censorer, CENSOR, parsePath } from '../src/lib/censor';
import { REDACT_PATHS, censorSecrets } from '../src/lib/redact';
import { startService } from './helper';

const SECRET = 'sk_live_51HcensorMe0000000000';

/** An object holding SECRET at `path` ('*' taken as an arbitrary key). */
function holding(path: string): Record<string, unknown> {
  const parts = parsePath(path).map((p) => (p === '*' ? 'anything' : p));
  const root: Record<string, unknown> = { level: 'kept' };
  let at = root;
  parts.forEach((p, i) => {
    at[p] = i === parts.length - 1 ? SECRET : { sibling: 'kept' };
    at = at[p] as Record<string, unknown>;
  });
  return root;
}

test('every redaction path is censored, nothing else is, and the logged object is not changed', () => {
  for (const path of REDACT_PATHS) {
    const logged = holding(path);
    const before = JSON.stringify(logged);
    const out = censorSecrets(logged);
    assert.ok(!JSON.stringify(out).includes(SECRET), `${path}: ${JSON.stringify(out)}`);
    assert.ok(JSON.stringify(out).includes(CENSOR), path);
    assert.equal(JSON.stringify(logged), before, `${path}: the caller's object was modified`);
    assert.equal(JSON.stringify(out).split('kept').length, before.split('kept').length, `${path}: a neighbour went missing`);
  }
  const clean = { reqId: 'r1', res: { statusCode: 201 }, card: { brand: 'visa', last4: '4242' }, list: [1, { token: 'x' }] };
  assert.equal(censorSecrets(clean), clean, 'an object without secrets is passed through, not copied');
});

test('path syntax: brackets, a wildcard at any depth, arrays, errors and class instances keep what serializers read', () => {
  const censor = censorer(['a["x-y"].b', 'list.*.pin', 'deep.*', '*.card.number']);
  assert.deepEqual(censor({ a: { 'x-y': { b: 1, c: 2 } } }), { a: { 'x-y': { b: CENSOR, c: 2 } } });
  assert.deepEqual(censor({ list: [{ pin: 1, n: 1 }, { n: 2 }] }), { list: [{ pin: CENSOR, n: 1 }, { n: 2 }] });
  assert.deepEqual(censor({ deep: { a: 1, b: { c: 2 } } }), { deep: { a: CENSOR, b: CENSOR } });
  const err = Object.assign(new TypeError('boom'), { card: { number: '4111111111111111' } });
  const out = censor({ err }) as { err: TypeError & { card: { number: string } } };
  assert.ok(out.err instanceof TypeError);
  assert.equal(out.err.message, 'boom');
  assert.equal(out.err.card.number, CENSOR);
  assert.equal(err.card.number, '4111111111111111');
  class Req {
    constructor(readonly raw: { url: string }, public card: { number: string }) {}
    get url() {
      return this.raw.url;
    }
  }
  const req = censor({ x: new Req({ url: '/p' }, { number: '1' }) }).x as Req;
  assert.equal(req.url, '/p');
  assert.equal(req.card.number, CENSOR);
});

test('log lines and request loggers of the service carry no secret, at trace level', async () => {
  const svc = await startService({ ROUTEGATE_LOG_LEVEL: 'trace' });
  try {
    const { apiKey } = await svc.createAccount();
    svc.app.log.info({ body: { creditCard: { number: '4111111111111111', cvv: '737' } }, credentials: { secretKey: SECRET } }, 'a careless line');
    svc.app.log.error({ err: Object.assign(new Error('gateway said no'), { secretKey: SECRET }) }, 'a careless error');
    const res = await svc.call('GET', '/api/v1/clients/me', { key: apiKey, headers: { authorization: `Bearer ${SECRET}`, cookie: `s=${SECRET}` } });
    assert.equal(res.status, 200);
    const logs = svc.logs.join('');
    for (const secret of [SECRET, '4111111111111111', '"737"', apiKey]) assert.ok(!logs.includes(secret), `${secret} reached a log line`);
    assert.ok(logs.includes('a careless line') && logs.includes('gateway said no'), 'the lines themselves are written');
    assert.ok(logs.includes('"url":"/api/v1/clients/me"'), 'requests are logged');
  } finally {
    await svc.close();
  }
});
