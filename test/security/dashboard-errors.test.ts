import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service } from '../helper';

// Issue 40 item 4: the dashboard renders every error as its HTML page, 429 from the per-IP rate limit included,
// though that limit answers before any session is read.

const services: Service[] = [];
after(async () => {
  for (const s of services) await s.close();
});

test('the per-IP rate limit on the dashboard answers its 429 page, not a 500', async () => {
  const svc = await startService({ ROUTEGATE_RATE_LIMIT: '3' });
  services.push(svc);
  const answers = [];
  for (let i = 0; i < 5; i += 1) answers.push(await svc.call('GET', '/dashboard/login', { localAddress: '127.0.0.9' }));
  const limited = answers.filter((a) => a.status === 429);
  assert.ok(limited.length >= 1, answers.map((a) => a.status).join(','));
  assert.equal(answers.filter((a) => a.status >= 500).length, 0, answers.map((a) => a.text).join('\n'));
  for (const a of limited) {
    assert.match(String(a.headers['content-type']), /text\/html/);
    assert.match(a.text, /Too many requests|rate limit/i);
    assert.ok(a.headers['retry-after'], 'Retry-After is kept');
  }
  // A form post limited the same way (no session, no CSRF token to check) is the same page.
  const post = await svc.call('POST', '/dashboard/login', { localAddress: '127.0.0.9', rawBody: 'email=a%40b.c&password=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(post.status, 429, post.text);
  assert.match(String(post.headers['content-type']), /text\/html/);
});
