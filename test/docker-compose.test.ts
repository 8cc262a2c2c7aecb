import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../src/lib/paths';
import { loadConfig } from '../src/config';

// docker-compose.yml cannot be run here (no Docker): this keeps it consistent instead. Services, their variables,
// the load balancer's upstreams and the health checks must agree with each other and with src/config.ts.

interface Service {
  image?: string;
  build?: string | { context: string };
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
  command?: string[];
}

const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const instances = Object.keys(services).filter((name) => /^routegate-\d+$/.test(name)).sort();
const nginxConf = fs.readFileSync(path.join(ROOT, 'deploy', 'nginx.conf'), 'utf8');

/** `${NAME:?message}` and `${NAME:-default}` as compose substitutes them, with these values set. */
function substitute(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+)(?::([?-])([^}]*))?\}/g, (_m, name: string, kind?: string, rest?: string) => {
    if (env[name] !== undefined) return env[name];
    if (kind === '-') return rest ?? '';
    throw new Error(`${name} is required by docker-compose.yml: ${rest}`);
  });
}

test('three RouteGate instances built from the Dockerfile, PostgreSQL 16, Redis 7 and an nginx load balancer', () => {
  assert.deepEqual(instances, ['routegate-1', 'routegate-2', 'routegate-3']);
  for (const name of instances) {
    const build = services[name].build;
    assert.equal(typeof build === 'string' ? build : build?.context, '.', `${name} is built from the repository`);
    assert.ok(fs.existsSync(path.join(ROOT, 'Dockerfile')));
  }
  assert.match(services.postgres.image ?? '', /^postgres:16(\.|-|$)/);
  assert.match(services.redis.image ?? '', /^redis:7(\.|-|$)/);
  assert.match(services.lb.image ?? '', /^nginx:/);
  assert.ok(services.lb.ports?.some((p) => /^\d+:8080$/.test(p)), 'the balancer is the one published port');
  for (const name of [...instances, 'postgres', 'redis']) assert.equal(services[name].ports, undefined, `${name} is reached through the compose network only`);
});

test('every instance gets the same database, Redis and master key, and a configuration RouteGate accepts', () => {
  const secrets = { POSTGRES_PASSWORD: 'pw0123456789abcdef', ROUTEGATE_MASTER_KEY: 'ab'.repeat(32) };
  const pg = services.postgres.environment!;
  const envs = instances.map((name) => Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, substitute(String(v), secrets)])));
  for (const [i, env] of envs.entries()) {
    assert.deepEqual(env, envs[0], `${instances[i]} has the same environment as ${instances[0]}`);
  }
  const env = envs[0];
  // Without a master key or a database password, compose refuses to start rather than inventing one.
  assert.throws(() => substitute(String(services[instances[0]].environment!.ROUTEGATE_MASTER_KEY), {}), /ROUTEGATE_MASTER_KEY is required/);
  assert.equal(env.ROUTEGATE_MASTER_KEY, secrets.ROUTEGATE_MASTER_KEY);

  const db = new URL(env.DATABASE_URL);
  assert.equal(db.protocol, 'postgres:');
  assert.equal(db.hostname, 'postgres', 'DATABASE_URL names the postgres service');
  assert.equal(db.port, '5432');
  assert.equal(db.username, pg.POSTGRES_USER);
  assert.equal(decodeURIComponent(db.password), substitute(pg.POSTGRES_PASSWORD, secrets));
  assert.equal(db.pathname, `/${pg.POSTGRES_DB}`);

  const redis = new URL(env.REDIS_URL);
  assert.equal(redis.protocol, 'redis:');
  assert.equal(redis.hostname, 'redis', 'REDIS_URL names the redis service');

  const config = loadConfig({ ...env, ROUTEGATE_DB: '/tmp/routegate-compose-test/rg.db' });
  assert.equal(config.production, true);
  assert.equal(config.redisUrl, env.REDIS_URL);
  assert.deepEqual(config.trustProxy, ['uniquelocal'], 'X-Forwarded-For from the balancer on the compose network is believed');
  assert.equal(config.port, 3000);
  assert.equal(config.publicUrl, 'http://localhost:8080', 'webhook URLs point at the balancer by default');
});

test("the balancer's upstreams are exactly the instances, on the port they listen on, and a request reaches one instance only", () => {
  const upstream = /upstream\s+(\w+)\s*\{([^}]*)\}/.exec(nginxConf);
  assert.ok(upstream, 'deploy/nginx.conf has an upstream block');
  const servers = [...upstream[2].matchAll(/^\s*server\s+([\w.-]+):(\d+)/gm)].map((m) => ({ host: m[1], port: m[2] }));
  assert.deepEqual(servers.map((s) => s.host).sort(), instances);
  for (const s of servers) assert.equal(s.port, services[s.host].environment!.PORT, `${s.host} listens on ${s.port}`);
  assert.match(nginxConf, new RegExp(`proxy_pass\\s+http://${upstream[1]};`));
  const listen = /listen\s+(\d+);/.exec(nginxConf)?.[1];
  assert.ok(services.lb.ports?.some((p) => p.endsWith(`:${listen}`)), `the published port is the one nginx listens on (${listen})`);
  assert.ok(services.lb.volumes?.some((v) => v.startsWith('./deploy/nginx.conf:/etc/nginx/conf.d/')), 'the balancer reads deploy/nginx.conf');
  assert.deepEqual(Object.keys(services.lb.depends_on ?? {}).sort(), instances);

  // The client address is nginx's $remote_addr (replaced, never appended to what the client sent).
  assert.match(nginxConf, /proxy_set_header\s+X-Forwarded-For\s+\$remote_addr;/);
  // No request is resent to another instance (a refund sent twice is two refunds).
  assert.match(nginxConf, /proxy_next_upstream\s+off;/);
  assert.doesNotMatch(nginxConf, /non_idempotent/);
  // nginx waits longer than RouteGate's own request deadline, and lets bodies past RouteGate's limit through to it.
  const readTimeout = Number(/proxy_read_timeout\s+(\d+)s;/.exec(nginxConf)?.[1]);
  assert.ok(readTimeout * 1000 > loadConfig({ ROUTEGATE_MASTER_KEY: 'ab'.repeat(32), ROUTEGATE_DB: '/tmp/routegate-compose-test/rg.db' }).requestDeadlineMs);
  assert.match(nginxConf, /client_max_body_size\s+2m;/);
});

test('health checks: instances on /health, the balancer through itself; start order follows them', () => {
  for (const name of instances) {
    const check = services[name].healthcheck?.test.join(' ') ?? '';
    assert.match(check, new RegExp(`http://127\\.0\\.0\\.1:${services[name].environment!.PORT}/health`), `${name} checks its own /health`);
    for (const dep of ['postgres', 'redis']) assert.equal(services[name].depends_on?.[dep]?.condition, 'service_healthy', `${name} waits for ${dep}`);
  }
  for (const later of instances.slice(1)) assert.equal(services[later].depends_on?.[instances[0]]?.condition, 'service_healthy', `${later} starts after the first instance migrated`);
  assert.match(services.lb.healthcheck?.test.join(' ') ?? '', /http:\/\/127\.0\.0\.1:8080\/health/);
  assert.match(services.postgres.healthcheck?.test.join(' ') ?? '', /pg_isready/);
  assert.match(services.redis.healthcheck?.test.join(' ') ?? '', /redis-cli ping/);
  for (const name of Object.keys(services)) assert.ok(services[name].healthcheck, `${name} has a health check`);
});
