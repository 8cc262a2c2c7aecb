import { GATEWAYS } from '../gateways/registry';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { documentRoute } from './openapi-operations';
import { rgError } from '../errors';

// @fastify/send's own test for an upward path, which it answers with a 403 error that has no public code (a 500).
const UP_PATH = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

/**
 * OpenAPI 3.1 from the same JSON Schemas the routes validate with, and Swagger UI at /docs. 3.1 because its
 * Schema Object is JSON Schema 2020-12: the `if`/`then` rules of schemas/charge-request.json (a card needs
 * `creditCard`, a boleto needs a customer) are valid there as written, so Ajv and the document read one file.
 * Statuses and headers come from openapi-operations.ts.
 */
export async function registerDocs(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'RouteGate API', version: '1.0.0', description: `One normalized payments API over ${GATEWAYS.map((g) => g.name).join(', ')}.` },
      servers: [{ url: publicUrl }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
    },
    transform: documentRoute as never,
    refResolver: {
      // Name components after the schema $id so /docs reads like schemas/.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  // In a context of its own so the hook covers only /docs, static files included: a `..` segment (decoded by the
  // router, so `%2e%2e` too) is refused as the 404 it is before the static file server sees it.
  await app.register(async (docs) => {
    docs.addHook('onRequest', async (request) => {
      const file = (request.params as { '*'?: unknown } | undefined)?.['*'];
      if (typeof file === 'string' && UP_PATH.test(file)) throw rgError('NOT_FOUND');
    });
    await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  });
}
