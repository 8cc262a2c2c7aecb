import { GatewayHttp } from '../../src/gateways/http-client';
import { loadMappings, type MappingRegistry } from '../../src/mapping/loader';
import { startEmulators, type EmulatorServer } from '../../src/sandbox/emulators';
import { EmulatorControlClient } from '../../src/sandbox/control-client';
import assert from 'node:assert/strict';
import { after, before, beforeEach } from 'node:test';
import { GatewayFailure, type CallContext, type GatewayId } from '../../src/gateways/types';

/** Emulators on port 0 plus what an adapter call needs, for tests that drive one adapter directly. */
export interface GatewayHarness {
  emulators: EmulatorServer;
  control: EmulatorControlClient;
  http: GatewayHttp;
  mappings: MappingRegistry;
  context(gateway: GatewayId, credentials: Record<string, string>, overrides?: Partial<CallContext>): CallContext;
  close(): Promise<void>;
}

let counter = 0;

export async function startGatewayHarness(): Promise<GatewayHarness> {
  const emulators = await startEmulators();
  const http = new GatewayHttp();
  const mappings = loadMappings();
  return {
    emulators,
    control: new EmulatorControlClient(emulators.url),
    http,
    mappings,
    context(gateway, credentials, overrides = {}) {
      counter += 1;
      return {
        gateway,
        baseUrl: emulators.gatewayUrl(gateway),
        credentials,
        http,
        mappings: mappings.get(gateway)!,
        idempotencyKey: `test_${process.pid}_${counter}`,
        chargeId: `chg_test_${process.pid}_${counter}`,
        timeoutMs: 5000,
        ...overrides,
      };
    },
    async close() {
      await http.close();
      await emulators.close();
    },
  };
}

/** The GatewayFailure a call rejects with; fails the test when it resolves or throws anything else. */
export async function failure(promise: Promise<unknown>): Promise<GatewayFailure> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof GatewayFailure, String(err));
    return err;
  }
  assert.fail('expected a GatewayFailure');
}

/**
 * The harness for one test file: emulators started before its tests and closed after them, their state and
 * request log reset before each test unless `resetBetweenTests` is false. Usable at module level.
 */
export function useGatewayHarness(options: { resetBetweenTests?: boolean } = {}): GatewayHarness {
  let harness: GatewayHarness | undefined;
  const current = (): GatewayHarness => {
    if (!harness) throw new Error('the gateway harness starts in before(); use it inside tests and hooks');
    return harness;
  };
  before(async () => {
    harness = await startGatewayHarness();
  });
  after(() => harness?.close());
  if (options.resetBetweenTests ?? true) beforeEach(() => current().control.reset());
  return {
    get emulators() { return current().emulators; },
    get control() { return current().control; },
    get http() { return current().http; },
    get mappings() { return current().mappings; },
    context: (gateway, credentials, overrides) => current().context(gateway, credentials, overrides),
    close: () => current().close(),
  };
}
