import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type Service } from './helper';

let svc: Service;
before(async () => {
  svc = await startService();
});
after(() => svc.close());

test('/docs serves Swagger UI and a valid OpenAPI 3 document built from the schemas', async () => {
  const ui = await svc.call('GET', '/docs');
  assert.equal(ui.status, 200);
  assert.match(ui.text, /swagger/i);
  const res = await svc.call('GET', '/docs/json');
  assert.equal(res.status, 200);
  const doc = res.body;
  assert.match(doc.openapi, /^3\./);
  assert.equal(doc.info.title, 'RouteGate API');
  assert.ok(doc.paths['/api/v1/clients/me'].get);
  assert.ok(doc.paths['/api/v1/clients/settings'].patch);
  assert.ok(doc.paths['/api/v1/credentials'].post);
  assert.equal(doc.components.securitySchemes.apiKey.name, 'x-api-key');
  assert.ok(doc.components.schemas['settings-patch'], 'schemas are published under their $id');
  // Every $ref must resolve inside the document.
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
  for (const ref of refs) {
    const target = ref.slice(8, -1);
    assert.match(target, /^#\/components\/schemas\//, target);
    assert.ok(doc.components.schemas[target.split('/').pop()!], `unresolved ${target}`);
  }
});

test('/health checks the database without a key', async () => {
  const res = await svc.call('GET', '/health');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { status: 'ok', database: 'ok' });
});
