import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service } from '../helper';
import { DashboardClient } from '../helpers/dashboard-client';

// Issue 40 item 6: setting or changing a password, and every reset, invalidates outstanding invitations and sessions.

const services: Service[] = [];
after(async () => {
  for (const s of services) await s.close();
});

async function acceptInvitation(svc: Service, token: string, password: string) {
  const browser = new DashboardClient(svc.url);
  // The session's CSRF token from the login form: a void invitation's page has no form to read it from.
  await browser.get('/dashboard/login');
  await browser.get(`/dashboard/invite?token=${encodeURIComponent(token)}`);
  return browser.post('/dashboard/invite', { token, password });
}

test('an invitation stops working once the owner changes the password; other sessions end', async () => {
  const svc = await startService();
  services.push(svc);
  const { id } = await svc.createAccount('Loja Convite', 'convite@example.com');
  await svc.app.logins.setOwnerPassword(id, 'first-password-123');
  const invitation = await svc.app.logins.invite(id); // a reset link, still in someone's mailbox
  const owner = new DashboardClient(svc.url);
  const other = new DashboardClient(svc.url, '127.0.0.3');
  assert.equal((await owner.login('convite@example.com', 'first-password-123')).status, 303);
  assert.equal((await other.login('convite@example.com', 'first-password-123')).status, 303);
  await owner.get('/dashboard/password');
  const changed = await owner.post('/dashboard/password', { currentPassword: 'first-password-123', password: 'second-password-456' });
  assert.equal(changed.status, 303, changed.text);
  assert.equal((await other.get('/dashboard/overview')).status, 303, 'the other browser is signed out');
  const used = await acceptInvitation(svc, invitation, 'attacker-password-789');
  assert.equal(used.status, 404, 'the invitation no longer sets a password');
  assert.match(used.text, /unknown, used or expired/);
  assert.match(used.text, /invitation/i);
  assert.equal((await new DashboardClient(svc.url).login('convite@example.com', 'attacker-password-789')).status, 401);
  assert.equal((await new DashboardClient(svc.url).login('convite@example.com', 'second-password-456')).status, 303);
});

test('an operator reset (a password set for the owner) ends the invitations and sessions issued before it', async () => {
  const svc = await startService();
  services.push(svc);
  const { id } = await svc.createAccount('Loja Reset', 'reset@example.com');
  const invitation = await svc.app.logins.invite(id);
  await svc.app.logins.setOwnerPassword(id, 'operator-set-pass-1');
  const session = new DashboardClient(svc.url);
  assert.equal((await session.login('reset@example.com', 'operator-set-pass-1')).status, 303);
  assert.equal((await acceptInvitation(svc, invitation, 'late-invite-pass-2')).status, 404, 'set after the invitation: the invitation is void');
  // A new invitation accepted (the reset link) ends the earlier session and every other invitation.
  const second = await svc.app.logins.invite(id);
  const third = await svc.app.logins.invite(id);
  assert.equal((await acceptInvitation(svc, third, 'reset-via-link-3')).status, 303);
  assert.equal((await acceptInvitation(svc, second, 'older-link-pass-4')).status, 404);
  assert.equal((await session.get('/dashboard/overview')).status, 303, 'the session from before the reset ended');
});
