import fs from 'node:fs';
import path from 'node:path';
import { hkdfSync, randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { GatewayId } from './gateways/registry-ids';
import { GATEWAYS } from './gateways/registry';
import { MAPPINGS_DIR } from './lib/paths';
import { parseWireSettings, WireSettingError } from './gateways/wire';
import type { WireSettings } from './gateways/types';

export interface Config {
  port: number;
  host: string;
  dbPath: string;
  /** postgres://... switches the store to PostgreSQL (several processes); unset: the SQLite file at dbPath. */
  databaseUrl?: string;
  publicUrl: string;
  masterKey: Buffer;
  masterKeySource: 'env' | 'file';
  rateLimit: number; // requests per minute, per API key and per client IP
  gatewayUrls: Record<GatewayId, string>;
  gatewayTimeoutMs: number; // response timeout: once the request is written, how long to wait for the answer
  connectTimeoutMs: number; // nothing was sent while connecting, so falling back after it is safe
  requestDeadlineMs: number; // a client has its answer by then, whatever the gateways do
  reconcileIntervalMs: number; // how often `processing` charges are settled; 0 = at start-up only
  reconcileBackoffMs: number; // first wait before an unsettled charge is checked again (doubles each time)
  settleHorizonMs: number; // a lookup's "none" proves a create absent only this long after its last send (docs/charges.md)
  bodyLimit: number; // bytes
  mappingsDir: string; // mappings/<gateway>/*.jsonata, status.json and fixtures
  nodeEnv: string;
  production: boolean;
  logLevel: string;
  /** The gateways' declared wire settings (real API vs SPEC.md wire choices), by variable name. */
  wire: WireSettings;
  /** ROUTEGATE_ALLOW_FAILING_MAPPINGS: `npm start` starts even when mapping fixtures fail (an emergency switch). */
  allowFailingMappings: boolean;
  /** ROUTEGATE_METRICS_TOKEN: GET /metrics needs `Authorization: Bearer <token>`; in production it is closed without one. */
  metricsToken: string | undefined;
  /** How long a merchant backend has to answer one forwarded event (the gateway waits on the first attempt). */
  webhookTimeoutMs: number;
  /** First wait before a failed delivery is retried; doubles to 6 hours (ROUTEGATE_WEBHOOK_RETRY_BASE_MS, 1 minute). */
  webhookRetryBaseMs: number;
  /** How often the outbox worker looks for due deliveries; 0 = never (ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS). */
  webhookWorkerIntervalMs: number;
  /** ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS: in production, forward to private, loopback or link-local addresses too. */
  allowPrivateForwardUrls: boolean;
  /** ROUTEGATE_ADMIN_EMAIL / ROUTEGATE_ADMIN_PASSWORD: the dashboard operator made (or updated) at start-up. */
  admin: { email: string; password: string } | undefined;
  /** Encrypts and signs dashboard session cookies: ROUTEGATE_SESSION_SECRET, else derived from the master key. */
  sessionKey: Buffer;
  /** ROUTEGATE_SESSION_HOURS: how long a dashboard sign-in lasts. */
  sessionTtlMs: number;
  /**
   * REDIS_URL (redis:// or rediss://): rate limits and the dashboard's sign-in throttle are counted in Redis,
   * so they hold across every RouteGate process; unset = in memory, per process.
   */
  redisUrl: string | undefined;
  /** ROUTEGATE_REDIS_PREFIX: the start of every key RouteGate writes in Redis (several installs can share one). */
  redisPrefix: string;
  /**
   * ROUTEGATE_TRUST_PROXY: the load balancers whose X-Forwarded-For is believed (addresses, CIDRs, or loopback,
   * linklocal, uniquelocal); unset = none, the peer address is the client (per-IP limits, sign-in throttle, logs).
   */
  trustProxy: string[] | false;
  warnings: string[]; // things start-up should log once the logger exists
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function boolean(env: Env, name: string): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0' || raw === 'no') return false;
  if (raw === 'true' || raw === '1' || raw === 'yes') return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function httpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

function redisUrl(env: Env): string | undefined {
  const raw = env.REDIS_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got "${raw}"`);
  return raw;
}

function redisPrefix(env: Env): string {
  const raw = env.ROUTEGATE_REDIS_PREFIX;
  if (raw === undefined || raw === '') return 'routegate:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(raw)) throw new ConfigError(`ROUTEGATE_REDIS_PREFIX must be 1 to 64 letters, digits or :_.- characters, got "${raw}"`);
  return raw;
}

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxy(env: Env): string[] | false {
  const raw = env.ROUTEGATE_TRUST_PROXY?.trim();
  if (!raw) return false;
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const ok = NAMED_RANGES.has(entry) || (isAddress(address) && (bits === undefined || isCidr(entry)));
    if (!ok) throw new ConfigError(`ROUTEGATE_TRUST_PROXY must list proxy addresses, CIDRs or loopback, linklocal, uniquelocal (comma-separated), got "${entry}"`);
  }
  return entries;
}

// Written out in full: ipaddr.js also takes "2" (0.0.0.2), which is someone meaning a hop count.
function isAddress(value: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(value) || ipaddr.IPv6.isValid(value);
}

function isCidr(value: string): boolean {
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

/** 32 bytes, given as 64 hex characters or base64. */
export function parseMasterKey(raw: string, name = 'ROUTEGATE_MASTER_KEY'): Buffer {
  const value = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const buf = Buffer.from(value, 'base64');
    if (buf.length === 32) return buf;
  }
  throw new ConfigError(`${name} must be 32 bytes as 64 hex characters or base64 (generate one with: openssl rand -hex 32)`);
}

function masterKey(env: Env, dbPath: string, production: boolean, warnings: string[]): { key: Buffer; source: 'env' | 'file' } {
  if (env.ROUTEGATE_MASTER_KEY) return { key: parseMasterKey(env.ROUTEGATE_MASTER_KEY), source: 'env' };
  if (production) throw new ConfigError('ROUTEGATE_MASTER_KEY is required when NODE_ENV=production (32 bytes, hex or base64)');
  const file = path.join(path.dirname(dbPath), 'master.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
    warnings.push(`ROUTEGATE_MASTER_KEY is not set: generated ${file}; set ROUTEGATE_MASTER_KEY in production`);
  } else {
    warnings.push(`ROUTEGATE_MASTER_KEY is not set: using ${file}`);
  }
  return { key: parseMasterKey(fs.readFileSync(file, 'utf8'), file), source: 'file' };
}

/** The NODE_ENV values that relax the production rules; anything else, unset included, is production. */
const DEVELOPMENT_ENVS = new Set(['development', 'test']);

/** Read and validate the whole configuration once; a bad value stops start-up with a clear message. */
export function loadConfig(env: Env = process.env): Config {
  const warnings: string[] = [];
  // Secure by default: only an explicit development (or test) environment relaxes the production rules, so an
  // install that sets nothing is not left with the SSRF policy off, cookies without Secure or /metrics open.
  const nodeEnv = env.NODE_ENV?.trim() || 'production';
  const production = !DEVELOPMENT_ENVS.has(nodeEnv);
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST?.trim() || '0.0.0.0';
  const dbPath = env.ROUTEGATE_DB?.trim() || './data/routegate.db';
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database); leave it unset for the embedded SQLite file (ROUTEGATE_DB)');
  }
  const publicUrl = httpUrl('ROUTEGATE_PUBLIC_URL', env.ROUTEGATE_PUBLIC_URL?.trim() || `http://localhost:${port}`);
  const rateLimit = integer(env, 'ROUTEGATE_RATE_LIMIT', 100, 1, 10_000_000);
  const gatewayTimeoutMs = integer(env, 'ROUTEGATE_GATEWAY_TIMEOUT_MS', 30_000, 1, 600_000);
  const connectTimeoutMs = integer(env, 'ROUTEGATE_CONNECT_TIMEOUT_MS', 5_000, 1, 600_000);
  const requestDeadlineMs = integer(env, 'ROUTEGATE_REQUEST_DEADLINE_MS', 45_000, 1, 3_600_000);
  const reconcileIntervalMs = integer(env, 'ROUTEGATE_RECONCILE_INTERVAL_MS', 30_000, 0, 86_400_000);
  const reconcileBackoffMs = integer(env, 'ROUTEGATE_RECONCILE_BACKOFF_MS', 5_000, 0, 3_600_000);
  // A gateway may act on a create it holds (slow, queued, retried inside it) long after RouteGate stopped waiting for
  // the answer: a lookup answering "none" proves nothing until this long after the create last left RouteGate.
  const settleHorizonMs = integer(env, 'ROUTEGATE_SETTLE_HORIZON_MS', 600_000, 1, 7 * 86_400_000);
  if (settleHorizonMs <= gatewayTimeoutMs) {
    throw new ConfigError(`ROUTEGATE_SETTLE_HORIZON_MS (${settleHorizonMs}) must exceed ROUTEGATE_GATEWAY_TIMEOUT_MS (${gatewayTimeoutMs}): a create the gateway still holds when RouteGate stops waiting would otherwise be called absent`);
  }
  const bodyLimit = integer(env, 'ROUTEGATE_BODY_LIMIT', 1024 * 1024, 1024, 100 * 1024 * 1024);
  const logLevel = env.ROUTEGATE_LOG_LEVEL?.trim() || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`ROUTEGATE_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  const gatewayUrls = {} as Record<GatewayId, string>;
  for (const g of GATEWAYS) {
    const name = gatewayUrlEnv(g.id);
    gatewayUrls[g.id] = httpUrl(name, env[name]?.trim() || g.adapter.defaultBaseUrl);
  }
  const mappingsDir = resolveMappingsDir(env);
  const allowFailingMappings = boolean(env, 'ROUTEGATE_ALLOW_FAILING_MAPPINGS');
  const metricsToken = env.ROUTEGATE_METRICS_TOKEN?.trim() || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) throw new ConfigError('ROUTEGATE_METRICS_TOKEN must be at least 16 characters (generate one with: openssl rand -hex 24)');
  const webhookTimeoutMs = integer(env, 'ROUTEGATE_WEBHOOK_TIMEOUT_MS', 5_000, 100, 60_000);
  const webhookRetryBaseMs = integer(env, 'ROUTEGATE_WEBHOOK_RETRY_BASE_MS', 60_000, 10, 3_600_000);
  const webhookWorkerIntervalMs = integer(env, 'ROUTEGATE_WEBHOOK_WORKER_INTERVAL_MS', 5_000, 0, 3_600_000);
  const allowPrivateForwardUrls = boolean(env, 'ROUTEGATE_ALLOW_PRIVATE_FORWARD_URLS');
  const wire = wireSettings(env);
  // The key file is generated unless NODE_ENV=production is said outright: the CLI runs with
  // nothing set and must find the same key as the service beside it.
  const key = masterKey(env, dbPath, env.NODE_ENV?.trim() === 'production', warnings);
  if (production && metricsToken === undefined) warnings.push('ROUTEGATE_METRICS_TOKEN is not set: GET /metrics answers 401 in production until it is');
  const admin = adminLogin(env);
  const sessionKey = env.ROUTEGATE_SESSION_SECRET?.trim() ? parseMasterKey(env.ROUTEGATE_SESSION_SECRET, 'ROUTEGATE_SESSION_SECRET') : deriveSessionKey(key.key);
  const sessionTtlMs = integer(env, 'ROUTEGATE_SESSION_HOURS', 8, 1, 720) * 3_600_000;
  return {
    redisUrl: redisUrl(env), redisPrefix: redisPrefix(env), trustProxy: trustProxy(env),
    port, host, dbPath, databaseUrl, publicUrl, masterKey: key.key, masterKeySource: key.source, rateLimit, gatewayUrls,
    gatewayTimeoutMs, connectTimeoutMs, requestDeadlineMs, reconcileIntervalMs, reconcileBackoffMs, settleHorizonMs, bodyLimit, mappingsDir, nodeEnv, production, logLevel,
    wire, allowFailingMappings, metricsToken, webhookTimeoutMs, webhookRetryBaseMs, webhookWorkerIntervalMs, allowPrivateForwardUrls, admin, sessionKey, sessionTtlMs, warnings,
  };
}

/** ROUTEGATE_<ID>_URL: where a gateway is reached (the emulators, in the sandbox and tests). */
export function gatewayUrlEnv(id: GatewayId): string {
  return `ROUTEGATE_${id.toUpperCase()}_URL`;
}

// Wire settings (DESIGN.md: the wire follows the real API; SPEC.md's variant is one setting away), as each
// gateway declares them in its descriptor.
function wireSettings(env: Env) {
  try {
    return parseWireSettings(env);
  } catch (err) {
    if (err instanceof WireSettingError) throw new ConfigError(err.message);
    throw err;
  }
}

/**
 * ROUTEGATE_MAPPINGS_DIR lets operators keep edited mappings outside the install (a volume, a repository of
 * their own); default: the mappings/ folder shipped with RouteGate.
 */
export function resolveMappingsDir(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.ROUTEGATE_MAPPINGS_DIR?.trim();
  if (!given) return MAPPINGS_DIR;
  const dir = path.resolve(given);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new ConfigError(`ROUTEGATE_MAPPINGS_DIR must be a folder holding <gateway>/*.jsonata; "${given}" is not a folder`);
  }
  return dir;
}

/** Both or neither; the same rules as any dashboard password (12 characters at least). */
function adminLogin(env: Env): Config['admin'] {
  const email = env.ROUTEGATE_ADMIN_EMAIL?.trim();
  const password = env.ROUTEGATE_ADMIN_PASSWORD;
  if (!email && !password) return undefined;
  if (!email || !password) throw new ConfigError('ROUTEGATE_ADMIN_EMAIL and ROUTEGATE_ADMIN_PASSWORD go together: set both or neither');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new ConfigError(`ROUTEGATE_ADMIN_EMAIL must be an e-mail address, got "${email}"`);
  if ([...password].length < 12) throw new ConfigError('ROUTEGATE_ADMIN_PASSWORD must be at least 12 characters');
  return { email, password };
}

// A key of its own for the cookies (HKDF), so a session key never decrypts credentials and vice versa.
function deriveSessionKey(master: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'routegate dashboard sessions', 32));
}
