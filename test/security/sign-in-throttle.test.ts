import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service } from '../helper';
import { DashboardClient } from '../helpers/dashboard-client';

// Issue 40 item 7: the sign-in throttle cannot be turned into a lockout by strangers. Failures are counted per
// e-mail, per IP and per (e-mail, IP); the e-mail's count stops only addresses that failed on it, so the operator's
// right password from an address with no failures gets through however long strangers keep guessing.

const services: Service[] = [];
after(async () => {
  for (const s of services) await s.close();
});

const OPERATOR = { email: 'ops@example.com', password: 'operator password 1' };

test('strangers failing on the operator from other addresses do not lock the operator out', async () => {
  const svc = await startService({ ROUTEGATE_ADMIN_EMAIL: OPERATOR.email, ROUTEGATE_ADMIN_PASSWORD: OPERATOR.password, ROUTEGATE_RATE_LIMIT: '10000' });
  services.push(svc);
  // One stranger guessing from one address, then one more guess from each of several others.
  const stranger = new DashboardClient(svc.url, '127.0.0.20');
  await stranger.get('/dashboard/login');
  for (let i = 0; i < 5; i++) assert.equal((await stranger.post('/dashboard/login', { email: OPERATOR.email, password: `guess ${i} guess guess` })).status, 401);
  assert.equal((await stranger.post('/dashboard/login', { email: OPERATOR.email, password: 'guess again guess' })).status, 429, 'the guessing address waits');
  assert.equal((await stranger.post('/dashboard/login', { email: OPERATOR.email, password: OPERATOR.password })).status, 429, 'even the right password is not checked from there');
  for (const ip of ['127.0.0.21', '127.0.0.22', '127.0.0.23']) {
    const other = new DashboardClient(svc.url, ip);
    await other.get('/dashboard/login');
    assert.equal((await other.post('/dashboard/login', { email: OPERATOR.email, password: 'distributed guess 1' })).status, 401, `${ip}: its first guess is checked`);
    assert.equal((await other.post('/dashboard/login', { email: OPERATOR.email, password: 'distributed guess 2' })).status, 429, `${ip}: a second guess waits, the account is at its limit`);
  }
  // The operator, from an address with no failures: signed in.
  const operator = new DashboardClient(svc.url, '127.0.0.30');
  const signedIn = await operator.login(OPERATOR.email, OPERATOR.password);
  assert.equal(signedIn.status, 303, signedIn.text);
  assert.equal(signedIn.location, '/dashboard');
  // The stranger's address still waits after the operator's success (its own count stays).
  assert.equal((await stranger.post('/dashboard/login', { email: OPERATOR.email, password: 'guess after success' })).status, 429);
});
