import { resolveGatewayId } from '../gateways/registry-ids';
import { fieldSummary, rgError } from '../errors';
import type { SchemaValidator } from '../http/schemas';
import type { CredentialVault, MaskedCredentials } from './credential-vault';

/**
 * Store (or replace) one gateway's credentials after checking them against that gateway's schema: the API's
 * POST /credentials and the dashboard's credentials form both come here.
 */
export async function saveCredentials(vault: CredentialVault, validator: SchemaValidator, accountId: string, gatewayInput: string, credentials: Record<string, string>): Promise<MaskedCredentials> {
  const gateway = resolveGatewayId(gatewayInput);
  if (!gateway) throw rgError('UNKNOWN_GATEWAY', { gateway: gatewayInput });
  validator.assert(`credentials-${gateway}`, credentials, 'credentials',
    (errors) => rgError('CREDENTIALS_INVALID', { gateway, fields: fieldSummary(errors) }, { details: { errors } }));
  return await vault.save(accountId, gateway, credentials);
}

/** Remove one gateway's credentials (API DELETE /credentials/:gateway and the dashboard). */
export async function deleteCredentials(vault: CredentialVault, accountId: string, gatewayInput: string): Promise<string> {
  const gateway = resolveGatewayId(gatewayInput);
  if (!gateway) throw rgError('UNKNOWN_GATEWAY', { gateway: gatewayInput });
  if (!await vault.delete(accountId, gateway)) throw rgError('CREDENTIALS_NOT_STORED', { gateway });
  return gateway;
}
