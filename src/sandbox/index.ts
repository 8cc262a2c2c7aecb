import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app';
import { loadConfig, ConfigError } from '../config';
import { AccountService } from '../accounts/service';
import { GATEWAY_IDS, type GatewayId } from '../gateways/registry-ids';
import { GATEWAYS } from '../gateways/registry';
import { MappingLoadError } from '../mapping/loader';
import { startEmulators, type EmulatorServer } from './emulators';
import { parseWireSettings } from '../gateways/wire';
import type { WireSettings } from '../gateways/types';

/** Credentials the emulators accept (anything without the word "invalid"), each gateway's descriptor.sandboxCredentials. */
export const SANDBOX_CREDENTIALS: Record<GatewayId, Record<string, string>> = Object.fromEntries(GATEWAYS.map((g) => [g.id, { ...g.sandboxCredentials }]));

export interface Sandbox {
  app: FastifyInstance;
  emulators: EmulatorServer;
  url: string;
  account: { id: string; apiKey: string };
  close(): Promise<void>;
}

export interface SandboxOptions {
  port?: number;
  host?: string;
  emulatorPort?: number;
  dbPath?: string;
  env?: NodeJS.ProcessEnv;
  logLevel?: string;
  /** Where the service's pino lines go (tests capture them); default stdout. */
  logStream?: NodeJS.WritableStream;
}

/** The service pointed at the five emulators, with a demo account holding credentials for all of them. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const env = opts.env ?? process.env;
  // The emulators follow the same wire settings as the service (a bad value stops loadConfig below).
  const emulators = await startEmulators({ port: opts.emulatorPort ?? 0, host: '127.0.0.1', wire: safeWire(env) });
  const dbPath = opts.dbPath ?? env.ROUTEGATE_DB ?? './data/sandbox.db';
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${dbPath}${suffix}`, { force: true });
  const port = opts.port ?? 0;
  const gatewayUrls = Object.fromEntries(GATEWAY_IDS.map((g) => [`ROUTEGATE_${g.toUpperCase()}_URL`, emulators.gatewayUrl(g)]));
  const config = loadConfig({
    ...env, ...gatewayUrls, ROUTEGATE_DB: dbPath, PORT: String(port), ROUTEGATE_LOG_LEVEL: opts.logLevel ?? env.ROUTEGATE_LOG_LEVEL ?? 'warn',
    ROUTEGATE_PUBLIC_URL: env.ROUTEGATE_PUBLIC_URL ?? (port ? `http://localhost:${port}` : undefined),
  });
  const app = await buildApp({ config, logStream: opts.logStream });
  await app.listen({ port, host: opts.host ?? '127.0.0.1' });
  const address = app.server.address();
  const url = `http://${opts.host ?? '127.0.0.1'}:${typeof address === 'object' && address ? address.port : port}`;
  const account = new AccountService(app.store).create('Sandbox Store', 'sandbox@routegate.dev');
  const vault = app.vault;
  for (const g of GATEWAY_IDS) vault.save(account.id, g, SANDBOX_CREDENTIALS[g]);
  app.store.accounts.saveSettings(account.id, {
    ...app.store.accounts.settings(account.id), primaryGateway: 'pagarme', gatewayFallbacks: ['stripe', 'mercadopago', 'pagbank'],
    stripeRawCardData: true, // the emulated Stripe account has raw card data access (its key says rawcard)
  });
  return {
    app, emulators, url, account,
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

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const emulatorPort = Number(process.env.ROUTEGATE_EMULATOR_PORT ?? 4010);
  const sandbox = await startSandbox({ port, emulatorPort, dbPath: path.resolve(process.env.ROUTEGATE_DB ?? './data/sandbox.db') });
  const out = (s: string) => process.stdout.write(s + '\n');
  out('RouteGate sandbox is running.');
  out(`  service:    ${sandbox.url}   (OpenAPI: ${sandbox.url}/docs)`);
  out(`  emulators:  ${sandbox.emulators.url}/{stripe,pagarme,asaas,mercadopago,pagbank}   (control: ${sandbox.emulators.url}/__control)`);
  out(`  account:    ${sandbox.account.id}`);
  out(`  API key:    ${sandbox.account.apiKey}`);
  out('  primary gateway pagarme, fallbacks stripe, mercadopago, pagbank; credentials stored for all five.');
  out('');
  out('Create a pix charge:');
  out(`  ${pixCurl(sandbox.url, sandbox.account.apiKey)}`);
  out('');
  out('Then play the payer (externalId from that answer) and read the charge again at the gateway:');
  out(`  curl -s -X POST ${sandbox.emulators.url}/__control/pay -H 'content-type: application/json' -d '{"gateway":"pagarme","id":"<externalId>"}'`);
  out(`  curl -s '${sandbox.url}/api/v1/charges/<id>?refresh=true' -H 'x-api-key: ${sandbox.account.apiKey}'`);
  out('');
  out('Press Ctrl+C to stop.');
  const stop = () => sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((err) => {
    const known = err instanceof ConfigError || err instanceof MappingLoadError;
    process.stderr.write(`routegate sandbox: ${known ? err.message : (err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
