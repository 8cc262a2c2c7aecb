import type { FastifyInstance } from 'fastify';
import { resolveGatewayId, type GatewayId } from '../gateways/registry-ids';
import { webhookUrls } from './webhook-urls';
import { fieldSummary, rgError } from '../errors';
import type { Store } from '../store';
import type { CredentialVault } from './credential-vault';
import { applySettingsPatch, type SettingsPatch } from './settings';
import type { SchemaValidator } from '../http/schemas';

export interface AccountRoutesOptions {
  store: Store;
  vault: CredentialVault;
  validator: SchemaValidator;
  publicUrl: string;
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
        id: a.id, name: a.name, email: a.email, webhookToken: a.webhookToken, webhookUrls: webhookUrls(publicUrl, a.webhookToken),
        settings: store.accounts.settings(a.id),
      },
    };
  });

  app.patch<{ Body: SettingsPatch }>('/clients/settings', {
    schema: {
      tags: ['account'], summary: 'Change routing, compatibility and response settings',
      body: { $ref: 'settings-patch#' }, response: { 200: { $ref: 'settings-response#' }, ...errorResponses },
    },
  }, async (request) => {
    const id = request.account.id;
    const next = applySettingsPatch(store.accounts.settings(id), request.body);
    store.accounts.saveSettings(id, next);
    return { success: true, data: next };
  });

  app.post<{ Body: { gateway: string; credentials: Record<string, string> } }>('/credentials', {
    schema: {
      tags: ['credentials'], summary: 'Store (or replace) the credentials for one gateway',
      body: { $ref: 'credentials-request#' }, response: { 201: { $ref: 'credentials-response#' }, ...errorResponses },
    },
  }, async (request, reply) => {
    const gateway = resolveGatewayId(request.body.gateway)!;
    validator.assert(`credentials-${gateway}`, request.body.credentials, 'credentials',
      (errors) => rgError('CREDENTIALS_INVALID', { gateway, fields: fieldSummary(errors) }, { details: { errors } }));
    const saved = vault.save(request.account.id, gateway, request.body.credentials);
    return reply.code(201).send({ success: true, data: saved });
  });

  app.get('/credentials', {
    schema: { tags: ['credentials'], summary: 'Configured gateways, masked', response: { 200: { $ref: 'credentials-list-response#' }, ...errorResponses } },
  }, async (request) => ({ success: true, data: vault.list(request.account.id) }));

  app.delete<{ Params: { gateway: string } }>('/credentials/:gateway', {
    schema: { tags: ['credentials'], summary: 'Remove the credentials for one gateway', params: { type: 'object', properties: { gateway: { type: 'string' } } } },
  }, async (request) => {
    const gateway = resolveGatewayId(request.params.gateway);
    if (!gateway) throw rgError('UNKNOWN_GATEWAY', { gateway: request.params.gateway });
    if (!vault.delete(request.account.id, gateway as GatewayId)) throw rgError('CREDENTIALS_NOT_STORED', { gateway });
    return { success: true, data: { gateway, deleted: true } };
  });
}
