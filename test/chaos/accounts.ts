import type { Store } from '../../src/store';
import { AccountService } from '../../src/accounts/service';
import type { CredentialVault } from '../../src/accounts/credential-vault';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox/index';
import { GATEWAY_IDS } from '../../src/gateways/registry-ids';

export interface ChaosAccount { id: string; apiKey: string; webhookToken: string }

let n = 0;

/** A fresh account holding every gateway's sandbox credentials, with these settings: one per case, so its charges are the case's. */
export async function chaosAccount(store: Store, vault: CredentialVault, settings: Record<string, unknown>): Promise<ChaosAccount> {
  n += 1;
  const { id, apiKey } = await new AccountService(store).create(`Loja Caos ${n}`, `caos${n}@example.com`);
  for (const g of GATEWAY_IDS) await vault.save(id, g, SANDBOX_CREDENTIALS[g]);
  await store.accounts.saveSettings(id, { ...(await store.accounts.settings(id)), ...settings });
  const account = await store.accounts.get(id);
  return { id, apiKey, webhookToken: account!.webhookToken };
}
