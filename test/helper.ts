import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { Writable } from 'node:stream';
import { Agent, Client, request as undiciRequest } from 'undici';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app';
import { loadConfig, type Config } from '../src/config';
import { AccountService } from '../src/accounts/service';
import { testDatabase } from './helpers/test-db';
import assert from 'node:assert/strict';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Send from another loopback address (127.0.0.2, ...) to look like another client IP. */
  localAddress?: string;
}

const agents = new Map<string, Agent>();
function agentFor(localAddress: string): Agent {
  let agent = agents.get(localAddress);
  if (!agent) {
    agent = new Agent({ localAddress } as never);
    agents.set(localAddress, agent);
  }
  return agent;
}

export interface Service {
  app: FastifyInstance;
  config: Config;
  url: string;
  dbPath: string;
  logs: string[];
  accounts: AccountService;
  createAccount(name?: string, email?: string): Promise<{ id: string; apiKey: string }>;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  close(): Promise<void>;
}

/** A real RouteGate listening on an ephemeral port, on a fresh SQLite file, with its log lines captured. */
export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-test-'));
  const dbPath = path.join(dir, 'routegate.db');
  // A test that names the SQLite file shares it with another process (the CLI, a second service): it stays on it.
  const database = env.ROUTEGATE_DB ? { env: {}, drop: async () => undefined } : await testDatabase();
  const config = loadConfig({
    // Unset NODE_ENV is production (secure by default); tests say which they mean, development unless given.
    NODE_ENV: 'development',
    ROUTEGATE_DB: dbPath,
    ROUTEGATE_MASTER_KEY: 'a'.repeat(64),
    ROUTEGATE_LOG_LEVEL: 'info',
    PORT: '0',
    ROUTEGATE_PUBLIC_URL: 'https://pay.example.com',
    ...database.env,
    ...env,
  });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(chunk.toString());
      cb();
    },
  });
  const app = await buildApp({ config, logStream });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const accounts = new AccountService(app.store);
  return {
    app, config, url, dbPath, logs, accounts,
    createAccount: (name = 'Loja Exemplo', email = 'loja@example.com') => accounts.create(name, email),
    call: (method, p, opts = {}) => call(url, method, p, opts),
    close: async () => {
      await app.close();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function call(base: string, method: string, p: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await undiciRequest(base + p, { method: method as 'GET', headers, body, dispatcher: opts.localAddress ? agentFor(opts.localAddress) : undefined });
  return toReply(res.statusCode, res.headers, await res.body.text());
}

function toReply(status: number, headers: Reply['headers'], text: string): Reply {
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status, headers, body: parsed, text };
}

/**
 * The request target exactly as given (`call` parses it as a URL, which resolves `%2e%2e` and dot segments
 * before sending); headers and body as given too.
 */
export async function callRaw(base: string, method: string, target: string, opts: { headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const client = new Client(base);
  try {
    const res = await client.request({ method: method as 'GET', path: target, headers: opts.headers, body: opts.body });
    return toReply(res.statusCode, res.headers, await res.body.text());
  } finally {
    await client.close();
  }
}

/** Bytes written to a plain socket, for what no HTTP client sends (an oversized header, a broken request line). */
export async function callSocket(base: string, bytes: string): Promise<Reply> {
  const { hostname, port } = new URL(base);
  const received = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (err) => (chunks.length ? resolve(Buffer.concat(chunks).toString('latin1')) : reject(err)));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(bytes);
  });
  const [head, ...rest] = received.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  const text = rest.join('\r\n\r\n');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: parsed, text };
}

/** The SPEC.md envelope with this code and status, and nothing that looks like a stack trace. */
export function expectError(res: Reply, code: string, status: number): void {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${res.text}`);
  assert.equal(res.body?.success, false, res.text);
  assert.equal(res.body.error.code, code, res.text);
  assert.equal(typeof res.body.error.message, 'string');
  assert.ok(res.body.error.message.length > 0);
  assert.doesNotMatch(res.text, /at .+\.(js|ts):\d+/, 'no stack trace in an error body');
  assert.match(String(res.headers['content-type']), /application\/json/);
}
