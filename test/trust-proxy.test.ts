import { test } from 'node:test';
import { startService, expectError } from './helper';

// Behind a load balancer every request comes from the balancer's address: without ROUTEGATE_TRUST_PROXY the per-IP
// limit would count all clients as one. With it, the address the balancer puts in X-Forwarded-For is the client.

test('ROUTEGATE_TRUST_PROXY: the per-IP limit counts the X-Forwarded-For address a trusted balancer sends', async () => {
  const svc = await startService({ ROUTEGATE_TRUST_PROXY: 'loopback', ROUTEGATE_RATE_LIMIT: '2' });
  try {
    const from = (client: string) => svc.call('GET', '/api/v1/clients/me', { headers: { 'x-forwarded-for': client } });
    for (let i = 0; i < 2; i++) expectError(await from('203.0.113.7'), 'MISSING_API_KEY', 401);
    expectError(await from('203.0.113.7'), 'RATE_LIMIT_EXCEEDED', 429);
    expectError(await from('203.0.113.8'), 'MISSING_API_KEY', 401);
  } finally {
    await svc.close();
  }
});

test('without ROUTEGATE_TRUST_PROXY, X-Forwarded-For is ignored: a client cannot pick its own address', async () => {
  const svc = await startService({ ROUTEGATE_RATE_LIMIT: '2' });
  try {
    const from = (client: string) => svc.call('GET', '/api/v1/clients/me', { headers: { 'x-forwarded-for': client }, localAddress: '127.0.0.21' });
    for (let i = 0; i < 2; i++) expectError(await from(`203.0.113.${i}`), 'MISSING_API_KEY', 401);
    expectError(await from('203.0.113.99'), 'RATE_LIMIT_EXCEEDED', 429);
  } finally {
    await svc.close();
  }
});

test('a trusted list covers only the balancer: a client outside it is its own address, whatever it claims', async () => {
  const svc = await startService({ ROUTEGATE_TRUST_PROXY: '127.0.0.1', ROUTEGATE_RATE_LIMIT: '2' });
  try {
    const from = (client: string) => svc.call('GET', '/api/v1/clients/me', { headers: { 'x-forwarded-for': client }, localAddress: '127.0.0.22' });
    for (let i = 0; i < 2; i++) expectError(await from(`203.0.113.${i}`), 'MISSING_API_KEY', 401);
    expectError(await from('203.0.113.99'), 'RATE_LIMIT_EXCEEDED', 429);
  } finally {
    await svc.close();
  }
});
