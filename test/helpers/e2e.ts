import { testDatabase } from './test-db';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startSandbox, SANDBOX_CREDENTIALS, type Sandbox } from '../../src/sandbox/index';
import { EmulatorControlClient } from '../../src/sandbox/control-client';
import { AccountService } from '../../src/accounts/service';
import { GATEWAY_IDS, type GatewayId } from '../../src/gateways/registry-ids';
import type { SettingsRow } from '../../src/store/accounts';
import { call, type CallOptions, type Reply } from '../helper';

export interface E2E {
  sandbox: Sandbox;
  control: EmulatorControlClient;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  /** A new account with credentials for `gateways` (default all five) and these settings (compatPassthrough: the operator's switch). */
  account(settings?: Partial<SettingsRow> & { compatPassthrough?: boolean }, gateways?: GatewayId[], credentials?: Partial<Record<GatewayId, Record<string, string>>>): Promise<string>;
  /** A URL on this machine where nothing listens (connections are refused at once). */
  closedPortUrl(): Promise<string>;
  /** Run `fn` with one gateway's base URL replaced, then put it back. */
  withGatewayUrl<T>(gateway: GatewayId, url: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** RouteGate against the five emulators, both on ephemeral ports, on a fresh SQLite file. */
export async function startE2E(
  env: Record<string, string> = {}, logs?: { level: string; stream: NodeJS.WritableStream },
  // Off unless asked: most suites count requests and log lines, and webhooks would add the service's receivers to them.
  options: { webhooks?: boolean } = {},
): Promise<E2E> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'routegate-e2e-'));
  const database = await testDatabase();
  const sandbox = await startSandbox({
    dbPath: path.join(dir, 'rg.db'),
    env: { ROUTEGATE_MASTER_KEY: 'd'.repeat(64), ROUTEGATE_RATE_LIMIT: '100000', ...database.env, ...env },
    logLevel: logs?.level ?? 'silent',
    logStream: logs?.stream,
    webhooks: options.webhooks ?? false,
  });
  const vault = sandbox.app.vault;
  const accounts = new AccountService(sandbox.app.store);
  return {
    sandbox,
    control: new EmulatorControlClient(sandbox.emulators.url),
    call: (method, p, opts) => call(sandbox.url, method, p, opts),
    async account(settings = {}, gateways = [...GATEWAY_IDS], credentials = {}) {
      const { id, apiKey } = await accounts.create('Loja Teste', 'loja@example.com');
      for (const g of gateways) await vault.save(id, g, credentials[g] ?? SANDBOX_CREDENTIALS[g]);
      // The sandbox Stripe key has raw card data access, so accounts here may send raw cards to Stripe unless a test says otherwise.
      const { compatPassthrough, ...rest } = settings as Partial<SettingsRow> & { compatPassthrough?: boolean };
      await sandbox.app.store.accounts.saveSettings(id, { ...(await sandbox.app.store.accounts.settings(id)), stripeRawCardData: true, ...rest });
      // Operator-only (issue 40): the untranslated compatibility paths on the gateway's allowlist pass.
      if (compatPassthrough) await sandbox.app.store.accounts.setCompatPassthrough(id, true);
      return apiKey;
    },
    async closedPortUrl() {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as net.AddressInfo;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return `http://127.0.0.1:${port}`;
    },
    async withGatewayUrl(gateway, url, fn) {
      const urls = sandbox.app.config.gatewayUrls;
      const saved = urls[gateway];
      urls[gateway] = url;
      try {
        return await fn();
      } finally {
        urls[gateway] = saved;
      }
    },
    async close() {
      await sandbox.close();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const ADDRESS = { street: 'Av Paulista', number: '100', complement: 'conj 12', district: 'Bela Vista', city: 'Sao Paulo', state: 'SP', postalCode: '01310-100', country: 'BR' };
export const CUSTOMER = { name: 'Maria Souza', email: 'maria.souza@example.com', document: '12345678909', phone: '11987654321', address: ADDRESS };
/** A 3-D Secure result as an MPI returns it (Pagar.me takes debit cards only with one). */
export const THREE_DS = { eci: '05', cavv: 'AAABBJg0VhI0VniQEjRWAAAAAAA=', transactionId: '3ds-tx-1', dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b', version: '2.2.0' };
export const CARD = { number: '4242424242424242', holderName: 'MARIA SOUZA', expMonth: 12, expYear: 2030, cvv: '123', installments: 1 };
export const DECLINES: Array<[string, string]> = [
  ['4000000000000002', 'card_declined'],
  ['4000000000009995', 'insufficient_funds'],
  ['4000000000000069', 'expired_card'],
  ['4000000000000127', 'incorrect_cvc'],
  ['4000000000000119', 'processing_error'],
];

/** How long a test waits for something asynchronous (a webhook, a background job) before failing. */
export const WAIT_MS = 15_000;

/**
 * Polls `probe` until it returns something (gateways notify asynchronously, after the call that changed a charge
 * has answered). Past `ms` it fails, so a broken feature fails its test instead of hanging until the test's timeout;
 * the default leaves a busy 2-core machine room, far above what a working feature takes (well under a second).
 */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, ms = WAIT_MS, what = 'the probe to hold'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}, in vain`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
