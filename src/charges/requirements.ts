import type { SettingsRow } from '../store/accounts';
import type { ChargeRequirement, NormalizedCharge, Payer } from '../gateways/types';

export interface UnmetRequirement {
  reason: ChargeRequirement['reason'];
  /** The normalized field (or setting) that is missing, as a client would name it. */
  field: string;
  /** The gateway's rule, as the adapter states it. */
  why: string;
}

const present = (v: unknown) => v !== undefined && v !== null && v !== '' && !(typeof v === 'object' && Object.keys(v as object).length === 0);

function read(root: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), root);
}

/**
 * The one generic check of an adapter's `requirements` (data on each adapter, see ChargeRequirement). `payer`
 * is undefined when RouteGate does not know the payer (a customerId created outside RouteGate): payer
 * requirements are then left to the gateway.
 */
export function unmetRequirement(
  requirements: readonly ChargeRequirement[] | undefined, charge: NormalizedCharge, payer: Payer | undefined, settings: SettingsRow,
): UnmetRequirement | undefined {
  for (const r of requirements ?? []) {
    if (!r.methods.includes(charge.paymentMethod)) continue;
    if (r.when && !present(resolve(r.when))) continue;
    for (const need of r.needs) {
      if (need.startsWith('payer.') && payer === undefined) continue;
      if (present(resolve(need))) continue;
      const field = need.startsWith('payer.') ? `customer.${need.slice('payer.'.length)}`
        : need.startsWith('setting.') ? `settings.${need.slice('setting.'.length)}` : need.slice('charge.'.length);
      return { reason: r.reason, field, why: r.why };
    }
  }
  return undefined;

  function resolve(path: string): unknown {
    const [scope, ...rest] = path.split('.');
    const key = rest.join('.');
    if (scope === 'payer') return read(payer, key);
    if (scope === 'charge') return read(charge, key);
    if (scope === 'setting') return (settings as unknown as Record<string, unknown>)[key] === true ? true : undefined;
    throw new Error(`requirement path ${path} must start with payer., charge. or setting.`);
  }
}
