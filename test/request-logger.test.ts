import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { requestLoggerFactory } from '../src/http/request-logger';
import { censorSecrets } from '../src/lib/redact';

/** A Fastify app logging through RequestLogger to `lines`, as src/app.ts builds it; `made` counts pino children. */
async function loggingApp(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const logger = pino({ level }, stream);
  // Every pino child made, at any depth (pino's children inherit this method).
  let made = 0;
  const child = logger.child;
  logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) {
    made++;
    return child.apply(this, args);
  } as typeof logger.child;
  const app = Fastify({ loggerInstance: logger as unknown as FastifyBaseLogger, childLoggerFactory: requestLoggerFactory(censorSecrets), disableRequestLogging: true });
  app.get('/quiet', async (request) => {
    request.log.info('below the level');
    request.log.debug('below the level');
    return { ok: true, enabled: { info: (request.log as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled('info') } };
  });
  app.get('/loud', async (request) => {
    request.log.warn({ order: 7 }, 'written');
    request.log.child({ step: 'inner' }).error('from a child');
    return { level: request.log.level };
  });
  app.get('/verbose', { logLevel: 'debug' }, async (request) => {
    request.log.debug('a debug line where the route asks for one');
    return { level: request.log.level };
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  // What start-up wrote and made is not a request's.
  lines.length = 0;
  const before = made;
  return { app, url, lines, made: () => made - before };
}

test('a request logger makes no pino child while nothing is written at the level in force', async () => {
  const { app, url, lines, made } = await loggingApp('warn');
  try {
    const res = await fetch(`${url}/quiet`, { headers: { 'x-api-key': 'rg_live_secret' } });
    assert.deepEqual(await res.json(), { ok: true, enabled: { info: false } });
    assert.equal(made(), 0, 'no child made for a request that wrote nothing');
    assert.deepEqual(lines, []);
  } finally {
    await app.close();
  }
});

test('a line at an enabled level carries the request id, and a child of the request logger carries it too', async () => {
  const { app, url, lines, made } = await loggingApp('warn');
  try {
    const res = await fetch(`${url}/loud`);
    assert.deepEqual(await res.json(), { level: 'warn' });
    assert.equal(made(), 2, "the request's child, then the route's child of it");
    assert.equal(lines.length, 2, JSON.stringify(lines));
    const [written, inner] = lines;
    assert.equal(written.msg, 'written');
    assert.equal(written.order, 7);
    assert.match(String(written.reqId), /^req-/);
    assert.equal(inner.msg, 'from a child');
    assert.equal(inner.reqId, written.reqId);
    assert.equal(inner.step, 'inner');
  } finally {
    await app.close();
  }
});

test("a route's own log level is the request logger's: debug lines are written where the route asks for them", async () => {
  const { app, url, lines } = await loggingApp('info');
  try {
    const res = await fetch(`${url}/verbose`);
    assert.deepEqual(await res.json(), { level: 'debug' });
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0].msg, 'a debug line where the route asks for one');
    assert.equal(lines[0].level, 20);
    assert.ok(lines[0].reqId);
  } finally {
    await app.close();
  }
});
