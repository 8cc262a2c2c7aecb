import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service } from './helper';
import { DashboardClient } from './helpers/dashboard-client';
import { clock } from '../src/lib/clock';

// The dashboard's security measures, each over real HTTP against a running service.

const ADMIN = { email: 'admin@example.com', password: 'admin password 123' };
const OWNER_PASSWORD = 'owner password 123';
let svc: Service;

before(async () => {
  // Many requests from one address: the API's per-IP limit (100 a minute by default) is not what these tests are about.
  svc = await startService({ ROUTEGATE_ADMIN_EMAIL: ADMIN.email, ROUTEGATE_ADMIN_PASSWORD: ADMIN.password, ROUTEGATE_RATE_LIMIT: '100000' });
});
after(() => svc.close());

const client = (localAddress?: string) => new DashboardClient(svc.url, localAddress);

async function operator(): Promise<DashboardClient> {
  const c = client();
  assert.equal((await c.login(ADMIN.email, ADMIN.password)).location, '/dashboard');
  return c;
}

/** An account made through the operator's page, with its owner's password; returns the owner's signed-in client. */
async function newOwner(email: string): Promise<{ owner: DashboardClient; accountId: string }> {
  const op = await operator();
  const res = await op.post('/dashboard/accounts', { name: `Loja ${email}`, email, password: OWNER_PASSWORD });
  assert.equal(res.status, 303, res.text);
  const accountId = (await svc.app.store.logins.owner(email))!.id;
  const owner = client();
  assert.equal((await owner.login(email, OWNER_PASSWORD)).location, '/dashboard');
  return { owner, accountId };
}

test('pages carry a strict CSP (no inline script or style), no framing, no referrer; the session cookie is HttpOnly, SameSite=Strict, scoped to /dashboard', async () => {
  const res = await client().get('/dashboard/login');
  const csp = String(res.headers['content-security-policy']);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /style-src 'self'(;|$)/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /form-action 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
  assert.equal(res.headers['referrer-policy'], 'no-referrer');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  const cookie = String(res.headers['set-cookie']);
  assert.match(cookie, /^rg_session=/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  assert.match(cookie, /Path=\/dashboard/);
  assert.doesNotMatch(cookie, /Secure/, 'plain http outside production');
  // The JSON API is untouched: no dashboard headers, and form bodies are still refused there.
  const api = await svc.call('GET', '/health');
  assert.equal(api.headers['content-security-policy'], undefined);
});

test('in production the session cookie is Secure', async () => {
  const prod = await startService({ NODE_ENV: 'production' });
  try {
    const res = await new DashboardClient(prod.url).get('/dashboard/login');
    assert.match(String(res.headers['set-cookie']), /; Secure/);
  } finally {
    await prod.close();
  }
});

test('no page has inline script or event-handler attributes, and every page is reachable only by its audience', async () => {
  const op = await operator();
  const { owner } = await newOwner('pages@example.com');
  const pages: Array<[DashboardClient, string]> = [
    [client(), '/dashboard/login'], [op, '/dashboard/accounts'], [op, '/dashboard/password'],
    ...['/dashboard/overview', '/dashboard/api-key', '/dashboard/credentials', '/dashboard/settings', '/dashboard/charges', '/dashboard/password'].map((p): [DashboardClient, string] => [owner, p]),
  ];
  for (const [c, path] of pages) {
    const res = await c.get(path);
    assert.equal(res.status, 200, path);
    assert.match(String(res.headers['content-type']), /text\/html/);
    for (const m of res.text.matchAll(/<script\b([^>]*)>/g)) assert.match(m[1], /\bsrc="\/dashboard\/static\/[\w.-]+\.js"/, `${path}: inline script`);
    assert.doesNotMatch(res.text, /\son[a-z]+=/i, `${path}: event-handler attribute`);
    assert.doesNotMatch(res.text, /\sstyle=/i, `${path}: inline style`);
  }
  assert.equal((await owner.get('/dashboard/accounts')).status, 403, 'an owner cannot open operator pages');
  assert.equal((await op.get('/dashboard/overview')).status, 403, 'an operator has no account pages');
  const anonymous = await client().get('/dashboard/overview');
  assert.equal(anonymous.status, 303);
  assert.equal(anonymous.location, '/dashboard/login');
});

test('a form posted without its CSRF token, or with another session\'s, is refused with 403 and changes nothing', async () => {
  const { owner, accountId } = await newOwner('csrf@example.com');
  const before = (await svc.app.store.apiKeys.live(accountId))!.hint;
  const missing = await owner.post('/dashboard/api-key', {}, { csrf: false });
  assert.equal(missing.status, 403);
  assert.match(missing.text, /not sent from a current dashboard page/);
  const other = client();
  await other.get('/dashboard/login');
  const foreign = await owner.post('/dashboard/api-key', {}, { csrf: other.csrf });
  assert.equal(foreign.status, 403);
  assert.equal((await svc.app.store.apiKeys.live(accountId))!.hint, before, 'no key was generated');
  const settings = await owner.post('/dashboard/settings', { responseFormat: 'raw' }, { csrf: false });
  assert.equal(settings.status, 403);
  assert.equal((await svc.app.store.accounts.settings(accountId)).responseFormat, 'full');
  // Sign-in itself needs the token (login CSRF).
  const login = client();
  await login.get('/dashboard/login');
  assert.equal((await login.post('/dashboard/login', { email: ADMIN.email, password: ADMIN.password }, { csrf: false })).status, 403);
  // With the token, the same post works.
  const ok = await owner.post('/dashboard/api-key');
  assert.equal(ok.status, 303);
  assert.notEqual((await svc.app.store.apiKeys.live(accountId))!.hint, before);
});

test('a wrong password shows an error next to the field and starts no session', async () => {
  const c = client();
  await c.get('/dashboard/login');
  const res = await c.post('/dashboard/login', { email: ADMIN.email, password: 'not the password' });
  assert.equal(res.status, 401);
  assert.match(res.text, /<p class="error" id="f-password-error" role="alert">Wrong e-mail or password<\/p>/);
  assert.equal((await c.get('/dashboard/accounts')).location, '/dashboard/login', 'still signed out');
  const unknown = await c.post('/dashboard/login', { email: 'nobody@example.com', password: 'whatever password' });
  assert.equal(unknown.status, 401, 'an unknown e-mail answers exactly like a wrong password');
  assert.match(unknown.text, /Wrong e-mail or password/);
});

test('sign-ins are throttled per e-mail and IP (5 failures) and per client IP (20 failures), even with the right password', async () => {
  const { accountId } = await newOwner('throttle@example.com');
  assert.ok(accountId);
  const attacker = client('127.0.0.2');
  await attacker.get('/dashboard/login');
  for (let i = 0; i < 5; i++) assert.equal((await attacker.post('/dashboard/login', { email: 'throttle@example.com', password: `guess ${i} guess guess` })).status, 401);
  const blocked = await attacker.post('/dashboard/login', { email: 'throttle@example.com', password: OWNER_PASSWORD });
  assert.equal(blocked.status, 429);
  assert.match(blocked.text, /Too many failed sign-ins; try again in 15 minutes/);
  assert.ok(Number(blocked.headers['retry-after']) > 0);
  // The account's count stops only addresses that failed on it (issue 40): the owner elsewhere still signs in, and
  // other e-mails sign in from there.
  const elsewhere = client('127.0.0.3');
  assert.equal((await elsewhere.login('throttle@example.com', OWNER_PASSWORD)).location, '/dashboard');
  assert.equal((await client('127.0.0.3').login(ADMIN.email, ADMIN.password)).location, '/dashboard');

  // Spraying: many e-mails from one IP.
  const sprayer = client('127.0.0.4');
  await sprayer.get('/dashboard/login');
  for (let i = 0; i < 20; i++) assert.equal((await sprayer.post('/dashboard/login', { email: `user${i}@example.com`, password: 'Password123!' })).status, 401);
  assert.equal((await sprayer.post('/dashboard/login', { email: ADMIN.email, password: ADMIN.password })).status, 429, 'the IP is blocked for every e-mail');

  // The window passes (the clock moves; nothing sleeps) and the right password works again.
  const realNow = clock.now;
  clock.now = () => realNow() + 16 * 60_000;
  try {
    assert.equal((await client('127.0.0.2').login('throttle@example.com', OWNER_PASSWORD)).location, '/dashboard');
  } finally {
    clock.now = realNow;
  }
});

test('signing out ends the session on the server: a copy of the cookie no longer works', async () => {
  const { owner } = await newOwner('logout@example.com');
  const stolen = client();
  stolen.cookie = owner.cookie;
  assert.equal((await stolen.get('/dashboard/overview')).status, 200, 'the copy works while the session lives');
  assert.equal((await owner.post('/dashboard/logout')).location, '/dashboard/login');
  assert.equal((await stolen.get('/dashboard/overview')).location, '/dashboard/login');
  assert.equal((await owner.get('/dashboard/overview')).location, '/dashboard/login');
});

test('a password change ends every other session; the new password works and the old one does not', async () => {
  const { owner } = await newOwner('change@example.com');
  const laptop = client();
  assert.equal((await laptop.login('change@example.com', OWNER_PASSWORD)).location, '/dashboard');
  await owner.get('/dashboard/password');
  const wrong = await owner.post('/dashboard/password', { currentPassword: 'not it at all', password: 'a brand new password' });
  assert.equal(wrong.status, 400);
  assert.match(wrong.text, /id="f-currentPassword-error" role="alert">currentPassword is wrong/);
  const short = await owner.post('/dashboard/password', { currentPassword: OWNER_PASSWORD, password: 'short' });
  assert.match(short.text, /id="f-password-error" role="alert">password needs at least 12 characters/);
  assert.equal((await owner.post('/dashboard/password', { currentPassword: OWNER_PASSWORD, password: 'a brand new password' })).location, '/dashboard');
  assert.equal((await owner.get('/dashboard/overview')).status, 200, 'this browser stays signed in');
  assert.equal((await laptop.get('/dashboard/overview')).location, '/dashboard/login', 'the other browser is signed out');
  assert.equal((await client().login('change@example.com', OWNER_PASSWORD)).status, 401);
  assert.equal((await client().login('change@example.com', 'a brand new password')).location, '/dashboard');
});

test('a session expires after ROUTEGATE_SESSION_HOURS', async () => {
  const { owner } = await newOwner('expiry@example.com');
  const realNow = clock.now;
  clock.now = () => realNow() + svc.config.sessionTtlMs + 1000;
  try {
    assert.equal((await owner.get('/dashboard/overview')).location, '/dashboard/login');
  } finally {
    clock.now = realNow;
  }
});

test('an invitation link lets the owner set a password once; a deactivated account\'s owner is signed out', async () => {
  const op = await operator();
  const created = await op.post('/dashboard/accounts', { name: 'Loja Convite', email: 'invite@example.com', password: '' });
  assert.equal(created.status, 201);
  const token = /invite\?token=([\w]+)/.exec(created.text)![1];
  const owner = client();
  const form = await owner.get(`/dashboard/invite?token=${token}`);
  assert.match(form.text, /invite@example\.com/);
  const short = await owner.post('/dashboard/invite', { token, password: 'short' });
  assert.match(short.text, /password needs at least 12 characters/);
  assert.equal((await owner.post('/dashboard/invite', { token, password: 'my invited password' })).location, '/dashboard/overview');
  assert.equal((await owner.get('/dashboard/overview')).status, 200);
  assert.equal((await client().get(`/dashboard/invite?token=${token}`)).status, 404, 'the link works once');
  assert.equal((await client().get('/dashboard/invite?token=inv_nope')).status, 404);

  const accountId = (await svc.app.store.logins.owner('invite@example.com'))!.id;
  await op.get('/dashboard/accounts');
  assert.equal((await op.post(`/dashboard/accounts/${accountId}/deactivate`)).location, '/dashboard/accounts');
  assert.equal((await owner.get('/dashboard/overview')).location, '/dashboard/login', 'signed out at the next request');
  const refused = await client().login('invite@example.com', 'my invited password');
  assert.equal(refused.status, 403);
  assert.match(refused.text, /deactivated/);
  await op.get('/dashboard/accounts');
  await op.post(`/dashboard/accounts/${accountId}/activate`);
  assert.equal((await client().login('invite@example.com', 'my invited password')).location, '/dashboard');
});

test('passwords are stored as argon2id hashes, sessions and invitations as SHA-256; no password, cookie or token reaches a log line', async () => {
  const { owner } = await newOwner('secrets@example.com');
  await owner.post('/dashboard/api-key');
  const key = /tk_[A-Za-z0-9]{40}/.exec((await owner.get('/dashboard/api-key')).text)![0];
  assert.ok(!/tk_[A-Za-z0-9]{40}/.test((await owner.get('/dashboard/api-key')).text), 'shown once');
  const { store } = svc.app;
  const hashes = [...await store.query('SELECT password_hash AS h FROM operators'), ...await store.query('SELECT password_hash AS h FROM account_owners')].map((r) => String(r.h));
  const sessions = (await store.query('SELECT id_hash AS h FROM dashboard_sessions')).map((r) => String(r.h));
  const dump = JSON.stringify(await store.query('SELECT * FROM account_owners')) + JSON.stringify(await store.query('SELECT * FROM operators'));
  assert.ok(hashes.length >= 2);
  for (const h of hashes) assert.match(h, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  for (const s of sessions) assert.match(s, /^[0-9a-f]{64}$/);
  assert.ok(!dump.includes(OWNER_PASSWORD) && !dump.includes(ADMIN.password));
  const logs = svc.logs.join('');
  for (const secret of [OWNER_PASSWORD, ADMIN.password, owner.cookie.split('=')[1], owner.csrf, key]) assert.ok(!logs.includes(secret), `a secret in the logs: ${secret.slice(0, 8)}...`);
});
