import type { FastifyInstance } from 'fastify';
import { webhookUrls } from './webhook-urls';
import type { Store } from '../store';
import type { CredentialVault } from './credential-vault';
import { forwardPolicy, updateSettings, type SettingsPatch } from './settings';
import { deleteCredentials, saveCredentials } from './credentials-input';
import type { SchemaValidator } from '../http/schemas';

export interface AccountRoutesOptions {
  store: Store;
  vault: CredentialVault;
  validator: SchemaValidator;
  /** Read on every request: the sandbox sets it once it knows the port it listens on. */
  publicUrl: () => string;
}

const errorResponses = { 400: { $ref: 'error-envelope#' }, 401: { $ref: 'error-envelope#' }, 403: { $ref: 'error-envelope#' } };

/** GET /clients/me, PATCH /clients/settings, credentials: thin handlers over the store and vault. */
export async function accountRoutes(app: FastifyInstance, opts: AccountRoutesOptions): Promise<void> {
  const { store, vault, validator, publicUrl } = opts;

  app.get('/clients/me', {
    schema: { tags: ['account'], summary: 'The account behind the API key', response: { 200: { $ref: 'client-response#' }, ...errorResponses } },
  }, async (request) => {
    const a = request.account;
    return {
      success: true,
      data: {
        id: a.id, name: a.name, email: a.email, webhookToken: a.webhookToken, webhookUrls: webhookUrls(publicUrl(), a.webhookToken),
        settings: await store.accounts.settings(a.id),
      },
    };
  });

  app.patch<{ Body: SettingsPatch }>('/clients/settings', {
    schema: {
      tags: ['account'], summary: 'Change routing, compatibility and response settings',
      body: { $ref: 'settings-patch#' }, response: { 200: { $ref: 'settings-response#' }, ...errorResponses },
    },
  }, async (request) => {
    return { success: true, data: await updateSettings(store, request.account.id, request.body, forwardPolicy(app)) };
  });

  app.post<{ Body: { gateway: string; credentials: Record<string, string> } }>('/credentials', {
    schema: {
      tags: ['credentials'], summary: 'Store (or replace) the credentials for one gateway',
      body: { $ref: 'credentials-request#' }, response: { 201: { $ref: 'credentials-response#' }, ...errorResponses },
    },
  }, async (request, reply) => {
    const saved = await saveCredentials(vault, validator, request.account.id, request.body.gateway, request.body.credentials);
    return reply.code(201).send({ success: true, data: saved });
  });

  app.get('/credentials', {
    schema: { tags: ['credentials'], summary: 'Configured gateways, masked', response: { 200: { $ref: 'credentials-list-response#' }, ...errorResponses } },
  }, async (request) => ({ success: true, data: await vault.list(request.account.id) }));

  app.delete<{ Params: { gateway: string } }>('/credentials/:gateway', {
    schema: { tags: ['credentials'], summary: 'Remove the credentials for one gateway', params: { type: 'object', properties: { gateway: { type: 'string' } } } },
  }, async (request) => {
    const gateway = await deleteCredentials(vault, request.account.id, request.params.gateway);
    return { success: true, data: { gateway, deleted: true } };
  });
}
