import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app';
import { loadConfig, ConfigError, gatewayUrlEnv } from '../config';
import { AccountService } from '../accounts/service';
import { GATEWAY_IDS } from '../gateways/registry-ids';
import { SANDBOX_CREDENTIALS, demoSettings } from './demo-account';
import { MappingLoadError } from '../mapping/loader';
import { startEmulators, type EmulatorServer } from './emulators';
import { parseWireSettings } from '../gateways/wire';
import type { WireSettings } from '../gateways/types';
import { listenOrExplain, ListenError } from '../lib/listen';
import { webhookUrl } from '../accounts/webhook-urls';
import { randomBase62 } from '../lib/crypto';

export { SANDBOX_CREDENTIALS } from './demo-account';

export interface Sandbox {
  app: FastifyInstance;
  emulators: EmulatorServer;
  url: string;
  /** The demo account, its API key and its webhook signing secret (both shown once: new ones on every run). */
  account: { id: string; apiKey: string; webhookSigningSecret: string };
  /** Dashboard sign-ins, new passwords each run (shown once, like the key): the demo operator and the demo account's owner. */
  logins: { operator: { email: string; password: string }; owner: { email: string; password: string } };
  /** The demo account was already in the database: its key was rotated (the previous one stops working). */
  accountExisted: boolean;
  dbPath: string;
  close(): Promise<void>;
}

export const DEMO_ACCOUNT = { name: 'Sandbox Store', email: 'sandbox@routegate.dev' };
export const DEMO_OPERATOR_EMAIL = 'operator@routegate.dev';

export interface SandboxOptions {
  port?: number;
  host?: string;
  emulatorPort?: number;
  dbPath?: string;
  env?: NodeJS.ProcessEnv;
  logLevel?: string;
  /** Where the service's pino lines go (tests capture them); default stdout. */
  logStream?: NodeJS.WritableStream;
  /** Delete the database first (`npm run sandbox -- --reset`); otherwise it is kept and shared with the CLI. */
  reset?: boolean;
  /**
   * Register the demo account's webhook URL (on the service as it listens) as every emulator's webhook endpoint, and
   * make the per-charge notification URLs name the service as it listens (unless ROUTEGATE_PUBLIC_URL is set), so a
   * charge changing state at a gateway reaches the service's receiver. Default true.
   */
  webhooks?: boolean;
}

/** The service pointed at the five emulators, with a demo account holding credentials for all of them. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const env = opts.env ?? process.env;
  // The emulators follow the same wire settings as the service (a bad value stops loadConfig below).
  const emulatorPort = opts.emulatorPort ?? 0;
  const emulators = await listenOrExplain(() => startEmulators({ port: emulatorPort, host: '127.0.0.1', wire: safeWire(env) }),
    { what: 'the sandbox emulators', port: emulatorPort, host: '127.0.0.1', hint: 'is another sandbox running? set ROUTEGATE_EMULATOR_PORT' });
  // The same file as the service and the CLI by default, so an account made with `routegate accounts create` is here.
  const dbPath = opts.dbPath ?? env.ROUTEGATE_DB ?? './data/routegate.db';
  if (opts.reset) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${dbPath}${suffix}`, { force: true });
  const port = opts.port ?? 0;
  const gatewayUrls = Object.fromEntries(GATEWAY_IDS.map((g) => [gatewayUrlEnv(g), emulators.gatewayUrl(g)]));
  const config = loadConfig({
    ...env, ...gatewayUrls,
    // The sandbox is a development service on this machine (emulators and webhooks on loopback) unless told otherwise.
    NODE_ENV: env.NODE_ENV || 'development', ROUTEGATE_DB: dbPath, PORT: String(port), ROUTEGATE_LOG_LEVEL: opts.logLevel ?? env.ROUTEGATE_LOG_LEVEL ?? 'warn',
    ROUTEGATE_PUBLIC_URL: env.ROUTEGATE_PUBLIC_URL ?? (port ? `http://localhost:${port}` : undefined),
  });
  let app: FastifyInstance;
  try {
    app = await buildApp({ config, logStream: opts.logStream });
    const host = opts.host ?? '127.0.0.1';
    await listenOrExplain(() => app.listen({ port, host }), { what: 'the sandbox service', port, host, hint: 'is another sandbox or RouteGate running? set PORT' });
  } catch (err) {
    await emulators.close();
    throw err;
  }
  const address = app.server.address();
  const url = `http://${opts.host ?? '127.0.0.1'}:${typeof address === 'object' && address ? address.port : port}`;
  // With webhooks wired and no ROUTEGATE_PUBLIC_URL, the webhook URLs the service shows and sends with each charge
  // (where a gateway takes a notification URL per charge) name the address it listens on: with port 0 the port is
  // known only now, and `localhost` may resolve to ::1, where nothing listens. Without webhooks (`webhooks: false`)
  // they stay unreachable, so no emulator reaches the service.
  if (!env.ROUTEGATE_PUBLIC_URL && opts.webhooks !== false) app.config.publicUrl = url;
  // A database kept from an earlier run already holds the demo account: it gets a fresh key (its key was shown
  // only once, and only its hash is stored), is active again and is put back to the demo's credentials and routing.
  const accounts = new AccountService(app.store, app.config.masterKey);
  const existing = (await accounts.list()).find((a) => a.email === DEMO_ACCOUNT.email);
  const created = existing ? (await accounts.rotateKey(existing.id))! : await accounts.create(DEMO_ACCOUNT.name, DEMO_ACCOUNT.email);
  if (existing && !existing.active) await accounts.setActive(existing.id, true);
  // The secret forwarded events are signed with, shown once like the key: a kept demo account gets a new one (the
  // previous one keeps signing for the 24-hour rotation overlap).
  const webhookSigningSecret = created.webhookSigningSecret ?? (await accounts.rotateSigningSecret(created.id))!.webhookSigningSecret;
  const account = { id: created.id, apiKey: created.apiKey, webhookSigningSecret };
  const vault = app.vault;
  for (const g of GATEWAY_IDS) await vault.save(account.id, g, SANDBOX_CREDENTIALS[g]);
  await app.store.accounts.saveSettings(account.id, demoSettings(await app.store.accounts.settings(account.id)));
  // What a merchant pastes in each gateway's dashboard; the emulators sign with the sandbox credentials'
  // webhookSecret, which the demo account holds. The service's own URL, not ROUTEGATE_PUBLIC_URL: that one may
  // name a port chosen before listening or a public host this machine does not answer for.
  if (opts.webhooks !== false) {
    const token = (await app.store.accounts.get(account.id))!.webhookToken;
    for (const g of GATEWAY_IDS) emulators.control.webhooks.register(g, { url: webhookUrl(url, g, token) });
  }
  const logins = { operator: { email: DEMO_OPERATOR_EMAIL, password: `op-${randomBase62(16)}` }, owner: { email: DEMO_ACCOUNT.email, password: `owner-${randomBase62(16)}` } };
  await app.logins.ensureOperator(logins.operator.email, logins.operator.password);
  await app.logins.setOwnerPassword(account.id, logins.owner.password);
  return {
    app, emulators, url, account, accountExisted: Boolean(existing), dbPath, logins,
    close: async () => {
      await app.close();
      await emulators.close();
    },
  };
}

function safeWire(env: NodeJS.ProcessEnv): WireSettings | undefined {
  try {
    return parseWireSettings(env);
  } catch {
    return undefined;
  }
}

export function pixCurl(url: string, apiKey: string): string {
  const body = JSON.stringify({
    paymentMethod: 'pix', amount: 1999, description: 'Pedido 1001', pix: { expiresInSeconds: 3600 },
    customer: { name: 'Maria Souza', email: 'maria@example.com', document: '12345678909', phone: '11987654321' },
  });
  return `curl -s -X POST ${url}/api/v1/charges -H 'x-api-key: ${apiKey}' -H 'content-type: application/json' -d '${body}'`;
}

const SANDBOX_USAGE = `usage: npm run sandbox [-- --reset]

  The service, the five gateway emulators and a demo account, on the database the service and the CLI use
  (ROUTEGATE_DB, default ./data/routegate.db). Nothing is deleted between runs; an existing demo account gets
  a new API key (the previous one stops working).

  --reset      delete the database first and start empty
  -h, --help   show this help

  PORT (3000) is the service's port, ROUTEGATE_EMULATOR_PORT (4010) the emulators'.`;

async function main(): Promise<number> {
  let values: { reset?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({ args: process.argv.slice(2), options: { reset: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (err) {
    process.stderr.write(`routegate sandbox: ${(err as Error).message.split('. To specify')[0]}\n\n${SANDBOX_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${SANDBOX_USAGE}\n`);
    return 0;
  }
  const port = Number(process.env.PORT ?? 3000);
  const emulatorPort = Number(process.env.ROUTEGATE_EMULATOR_PORT ?? 4010);
  const dbPath = path.resolve(process.env.ROUTEGATE_DB ?? './data/routegate.db');
  const sandbox = await startSandbox({ port, emulatorPort, dbPath, reset: values.reset });
  const out = (s: string) => process.stdout.write(s + '\n');
  out('RouteGate sandbox is running.');
  out(`  service:    ${sandbox.url}   (OpenAPI: ${sandbox.url}/docs)`);
  out(`  emulators:  ${sandbox.emulators.url}/{${GATEWAY_IDS.join(',')}}   (control: ${sandbox.emulators.url}/__control)`);
  out(`  database:   ${dbPath}${values.reset ? '   (reset: started empty)' : '   (kept between runs, shared with `npx routegate`; --reset starts empty)'}`);
  out(`  account:    ${sandbox.account.id}${sandbox.accountExisted ? '   (demo account from an earlier run: new key below, the previous one is revoked)' : ''}`);
  out(`  API key:    ${sandbox.account.apiKey}`);
  out(`  dashboard:  ${sandbox.url}/dashboard   (new passwords each run)`);
  out(`    operator: ${sandbox.logins.operator.email}  password ${sandbox.logins.operator.password}`);
  out(`    owner:    ${sandbox.logins.owner.email}  password ${sandbox.logins.owner.password}   (the demo account)`);
  const routing = await sandbox.app.store.accounts.settings(sandbox.account.id);
  const token = (await sandbox.app.store.accounts.get(sandbox.account.id))!.webhookToken;
  out(`  webhooks:   every emulator posts to ${sandbox.url}/api/v1/webhooks/<gateway>/${token}   (sent: ${sandbox.emulators.url}/__control/webhooks)`);
  out(`    events:   ${sandbox.url}/dashboard/events   or   curl -s ${sandbox.url}/api/v1/events -H 'x-api-key: ${sandbox.account.apiKey}'`);
  out(`    forward:  ${routing.webhookForwardUrl ?? 'none set'}   (the dashboard's Settings, or the PATCH below)`);
  out(`    signing secret: ${sandbox.account.webhookSigningSecret}   (X-RG-Signature and Standard Webhooks; shown once, new each run)`);
  out(`  primary gateway ${routing.primaryGateway}, fallbacks ${routing.gatewayFallbacks.join(', ')}; credentials stored for all ${GATEWAY_IDS.length}.`);
  out('');
  out('Create a pix charge:');
  out(`  ${pixCurl(sandbox.url, sandbox.account.apiKey)}`);
  out('');
  out('Then play the payer (externalId from that answer) and read the charge again at the gateway:');
  out(`  curl -s -X POST ${sandbox.emulators.url}/__control/pay -H 'content-type: application/json' -d '{"gateway":"${routing.primaryGateway}","id":"<externalId>"}'`);
  out(`  curl -s '${sandbox.url}/api/v1/charges/<id>?refresh=true' -H 'x-api-key: ${sandbox.account.apiKey}'`);
  out('');
  out("The gateway's webhook reaches the demo account's events; to have them forwarded to a server of yours:");
  out(`  curl -s -X PATCH ${sandbox.url}/api/v1/clients/settings -H 'x-api-key: ${sandbox.account.apiKey}' -H 'content-type: application/json' -d '{"webhookForwardUrl":"http://127.0.0.1:8000/webhooks"}'`);
  out('');
  out('Press Ctrl+C to stop.');
  const stop = () => sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}

if (require.main === module) {
  main().then((code) => {
    if (code >= 0) process.exit(code);
  }, (err) => {
    const known = err instanceof ConfigError || err instanceof MappingLoadError || err instanceof ListenError;
    process.stderr.write(`routegate sandbox: ${known ? err.message : (err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
