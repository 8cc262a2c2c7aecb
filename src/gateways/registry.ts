import type { GatewayDescriptor } from './descriptor';
import type { GatewayAdapter } from './types';
import { withAnswerGuard } from './answer-guard';

/**
 * THE list of gateways: one folder name per gateway (src/gateways/<id>/, exporting its descriptor). Everything
 * else that names gateways (schemas' enums, ROUTEGATE_<ID>_URL, the sandbox and the emulators, the CLI, log
 * redaction, docs tables) is derived from this list. Adding a gateway: docs/adding-a-gateway.md.
 */
// One line per gateway: `npm run new-gateway -- <id>` adds one here. src/gateways/template/ is what it copies, never registered.
const FOLDERS = [
  'stripe',
  'pagarme',
  'asaas',
  'mercadopago',
  'pagbank',
];

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const GATEWAYS: readonly GatewayDescriptor[] = FOLDERS.map((folder) => (require(`./${folder}`) as { descriptor: GatewayDescriptor }).descriptor);

export const GATEWAY_IDS: readonly string[] = GATEWAYS.map((g) => g.id);

// Every create's answer passes the money guard: a gateway that took another amount than asked is never `approved`.
export const ADAPTERS: Readonly<Record<string, GatewayAdapter>> = Object.freeze(Object.fromEntries(GATEWAYS.map((g) => [g.id, withAnswerGuard(g)])));

/** The gateways whose webhooks name RouteGate's charge id (descriptor.webhooksNameChargeId). */
export const GATEWAYS_NAMING_CHARGE_ID: ReadonlySet<string> = new Set(GATEWAYS.filter((g) => g.webhooksNameChargeId).map((g) => g.id));

export function adapterFor(id: string): GatewayAdapter {
  return ADAPTERS[id];
}

/** The gateway that issued a card token or saved payment method, when its prefix says so (descriptor.tokenPrefixes). */
export function tokenIssuer(token: string): string | undefined {
  return GATEWAYS.find((g) => g.tokenPrefixes?.some((prefix) => token.startsWith(prefix)))?.id;
}
