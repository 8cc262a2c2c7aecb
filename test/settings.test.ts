import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, expectError, type Service } from './helper';

let svc: Service;
let key: string;
before(async () => {
  svc = await startService();
  key = (await svc.createAccount()).apiKey;
});
after(() => svc.close());

const patch = (body: unknown) => svc.call('PATCH', '/api/v1/clients/settings', { key, body });

test('settings accept spec labels and pagseguro and store canonical ids', async () => {
  const res = await patch({ primaryGateway: 'gateway_1', gatewayFallbacks: ['pagseguro', 'gateway_2', 'gateway_3'], compatibilityMode: 'gateway_4' });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, {
    success: true,
    data: { primaryGateway: 'stripe', gatewayFallbacks: ['pagbank', 'pagarme', 'asaas'], compatibilityMode: 'mercadopago', responseFormat: 'full', webhookForwardUrl: null, orphanPolicy: 'refund', installments: { maxCount: 12, interestFreeCount: 12, monthlyInterestRate: 0, minInstallmentAmount: 0 }, stripeRawCardData: false },
  });
  const me = await svc.call('GET', '/api/v1/clients/me', { key });
  assert.equal(me.body.data.settings.primaryGateway, 'stripe');
  assert.deepEqual(me.body.data.settings.gatewayFallbacks, ['pagbank', 'pagarme', 'asaas']);
});

test('a patch changes only the fields it names and answers with the whole settings object', async () => {
  await patch({ primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'], compatibilityMode: null });
  const res = await patch({ responseFormat: 'normalized', webhookForwardUrl: 'https://shop.example.com/hooks' });
  assert.deepEqual(res.body.data, {
    primaryGateway: 'pagarme', gatewayFallbacks: ['stripe'], compatibilityMode: null, responseFormat: 'normalized', webhookForwardUrl: 'https://shop.example.com/hooks', orphanPolicy: 'refund',
    installments: { maxCount: 12, interestFreeCount: 12, monthlyInterestRate: 0, minInstallmentAmount: 0 }, stripeRawCardData: false,
  });
  const notify = await patch({ orphanPolicy: 'notify' });
  assert.equal(notify.body.data.orphanPolicy, 'notify');
  assert.equal(notify.body.data.responseFormat, 'normalized');
  await patch({ orphanPolicy: 'refund' });
  const cleared = await patch({ webhookForwardUrl: null, compatibilityMode: 'stripe' });
  assert.equal(cleared.body.data.webhookForwardUrl, null);
  assert.equal(cleared.body.data.compatibilityMode, 'stripe');
});

test('settings validation failures name the field', async () => {
  const cases: Array<[unknown, string, RegExp]> = [
    [{ primaryGateway: 'paypal' }, 'primaryGateway', /must be one of/],
    [{ gatewayFallbacks: ['stripe', 'gateway_1'] }, 'gatewayFallbacks.1', /more than once/],
    [{ primaryGateway: 'asaas', gatewayFallbacks: ['gateway_3'] }, 'gatewayFallbacks', /primary gateway asaas/],
    [{ responseFormat: 'xml' }, 'responseFormat', /must be one of/],
    [{ webhookForwardUrl: 'ftp://shop.example.com' }, 'webhookForwardUrl', /must be an http:\/\/ or https:\/\/ URL/],
    [{ webhookForwardUrl: 'not a url' }, 'webhookForwardUrl', /must be a URL|https:\/\//],
    [{ colour: 'blue' }, 'colour', /not a known field/],
    [{ gatewayFallbacks: 'stripe' }, 'gatewayFallbacks', /must be an array/],
  ];
  for (const [body, field, message] of cases) {
    const res = await patch(body);
    expectError(res, 'VALIDATION_ERROR', 400);
    const fields = res.body.error.details.errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes(field), `${JSON.stringify(body)} -> ${res.text}`);
    assert.match(res.body.error.details.errors.find((e: { field: string }) => e.field === field).message, message);
  }
});

test('a failed patch changes nothing', async () => {
  const before = (await svc.call('GET', '/api/v1/clients/me', { key })).body.data.settings;
  await patch({ responseFormat: 'raw', primaryGateway: 'nope' });
  const after = (await svc.call('GET', '/api/v1/clients/me', { key })).body.data.settings;
  assert.deepEqual(after, before);
});

test('an empty patch is a validation error', async () => {
  expectError(await patch({}), 'VALIDATION_ERROR', 400);
});
