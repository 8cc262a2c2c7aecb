import { installmentSettingsErrors } from '../installments/settings';
import type { InstallmentSettings } from '../installments/price-table';
import { resolveGatewayId } from '../gateways/registry-ids';
import { fieldSummary, rgError, type FieldError } from '../errors';
import type { SettingsRow } from '../store/accounts';
import { gatewaySettingNames } from '../gateways/account-settings';
import type { Store } from '../store';
import { checkSavedTarget, type TargetPolicy } from '../webhooks/forward-target';

export interface SettingsPatch {
  primaryGateway?: string | null;
  gatewayFallbacks?: string[];
  compatibilityMode?: string | null;
  responseFormat?: SettingsRow['responseFormat'];
  webhookForwardUrl?: string | null;
  orphanPolicy?: SettingsRow['orphanPolicy'];
  /** The fields sent replace the stored ones (docs/installments.md). */
  installments?: Partial<InstallmentSettings>;
  /** Settings a gateway declares for itself (descriptor.accountSettings); the schema lists them. */
  [gatewaySetting: string]: unknown;
}

/**
 * Merge a schema-valid patch into the current settings: aliases resolve to canonical ids, fallbacks keep
 * their order, may not repeat and may not contain the primary (it is tried first anyway).
 */
export function applySettingsPatch(current: SettingsRow, patch: SettingsPatch): SettingsRow {
  const next: SettingsRow = { ...current, gatewayFallbacks: [...current.gatewayFallbacks] };
  const errors: FieldError[] = [];
  if (patch.primaryGateway !== undefined) next.primaryGateway = patch.primaryGateway === null ? null : resolveGatewayId(patch.primaryGateway)!;
  if (patch.compatibilityMode !== undefined) next.compatibilityMode = patch.compatibilityMode === null ? null : resolveGatewayId(patch.compatibilityMode)!;
  if (patch.responseFormat !== undefined) next.responseFormat = patch.responseFormat;
  if (patch.webhookForwardUrl !== undefined) next.webhookForwardUrl = patch.webhookForwardUrl;
  if (patch.orphanPolicy !== undefined) next.orphanPolicy = patch.orphanPolicy;
  if (patch.installments !== undefined) {
    next.installments = { ...current.installments, ...patch.installments };
    errors.push(...installmentSettingsErrors(next.installments));
  }
  for (const name of gatewaySettingNames()) if (patch[name] !== undefined) next[name] = patch[name];
  if (patch.gatewayFallbacks !== undefined) {
    next.gatewayFallbacks = patch.gatewayFallbacks.map((g) => resolveGatewayId(g)!);
    const seen = new Set<string>();
    next.gatewayFallbacks.forEach((g, i) => {
      if (seen.has(g)) errors.push({ field: `gatewayFallbacks.${i}`, message: `${g} is listed more than once` });
      seen.add(g);
    });
  }
  if (next.primaryGateway && next.gatewayFallbacks.includes(next.primaryGateway)) {
    errors.push({
      field: patch.gatewayFallbacks !== undefined ? 'gatewayFallbacks' : 'primaryGateway',
      message: `the primary gateway ${next.primaryGateway} cannot also be a fallback`,
    });
  }
  if (errors.length) throw rgError('SETTINGS_INVALID', { fields: fieldSummary(errors) }, { details: { errors } });
  return next;
}

/** Apply a schema-valid patch to the stored settings and save them (API PATCH /clients/settings and the dashboard). */
export async function updateSettings(store: Store, accountId: string, patch: SettingsPatch, forwardPolicy: TargetPolicy): Promise<SettingsRow> {
  const current = await store.accounts.settings(accountId);
  const next = applySettingsPatch(current, patch);
  // A new forward URL meets the send-time target policy now (http, private, loopback, link-local, CGNAT, metadata, IPv4-mapped).
  if (next.webhookForwardUrl && next.webhookForwardUrl !== current.webhookForwardUrl) {
    const refused = await checkSavedTarget(next.webhookForwardUrl, forwardPolicy);
    if (refused !== undefined) {
      const errors: FieldError[] = [{ field: 'webhookForwardUrl', message: `is refused: ${refused}` }];
      throw rgError('SETTINGS_INVALID', { fields: fieldSummary(errors) }, { details: { errors } });
    }
  }
  await store.accounts.saveSettings(accountId, next);
  return next;
}

/** The send-time policy for forward URLs, from the service's configuration. */
export function forwardPolicy(app: { config: { production: boolean; allowPrivateForwardUrls: boolean } }): TargetPolicy {
  return { production: app.config.production, allowPrivate: app.config.allowPrivateForwardUrls };
}
