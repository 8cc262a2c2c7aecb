import type { FastifyInstance } from 'fastify';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { coproducerView, type CoproducerService, type CoproducerInput, type CoproducerPatch } from './coproducers';

const errors = { 400: { $ref: 'error-envelope#' }, 401: { $ref: 'error-envelope#' }, 404: { $ref: 'error-envelope#' }, 409: { $ref: 'error-envelope#' } };
const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } };

/** Coproducers CRUD: thin handlers over CoproducerService (which the dashboard's coproducers page uses too). */
export async function coproducerRoutes(app: FastifyInstance, opts: { coproducers: CoproducerService }): Promise<void> {
  const { coproducers } = opts;

  app.post<{ Body: CoproducerInput }>('/coproducers', {
    schema: {
      tags: ['coproducers'], summary: 'Create a coproducer (split recipient known by e-mail, with a recipient id per gateway)',
      body: { $ref: 'coproducer-request#' }, response: { 201: { $ref: 'coproducer-response#' }, ...errors },
    },
  }, async (request, reply) => reply.code(201).send({ success: true, data: coproducerView(await coproducers.create(request.account.id, request.body)) }));

  app.get<{ Querystring: { limit?: string; cursor?: string } }>('/coproducers', {
    schema: { tags: ['coproducers'], summary: 'List coproducers, newest first (cursor pagination)', querystring: { $ref: 'coproducer-list-query#' } },
  }, async (request) => {
    const limit = request.query.limit ? Number(request.query.limit) : 20;
    const rows = await coproducers.list(request.account.id, limit + 1, request.query.cursor ? decodeCursor(request.query.cursor) : undefined);
    const page = rows.slice(0, limit);
    const nextCursor = rows.length > limit ? encodeCursor(page[page.length - 1]) : null;
    return { success: true, data: page.map(coproducerView), pagination: { limit, nextCursor } };
  });

  app.get<{ Params: { id: string } }>('/coproducers/:id', {
    schema: { tags: ['coproducers'], summary: 'One coproducer', params: idParams, response: { 200: { $ref: 'coproducer-response#' }, ...errors } },
  }, async (request) => ({ success: true, data: coproducerView(await coproducers.get(request.account.id, request.params.id)) }));

  app.patch<{ Params: { id: string }; Body: CoproducerPatch }>('/coproducers/:id', {
    schema: {
      tags: ['coproducers'], summary: 'Change a coproducer: its name, e-mail, or one gateway\'s recipient (null removes it)',
      params: idParams, body: { $ref: 'coproducer-patch#' }, response: { 200: { $ref: 'coproducer-response#' }, ...errors },
    },
  }, async (request) => ({ success: true, data: coproducerView(await coproducers.update(request.account.id, request.params.id, request.body)) }));

  app.delete<{ Params: { id: string } }>('/coproducers/:id', {
    schema: { tags: ['coproducers'], summary: 'Delete a coproducer (charges already made keep the split they were made with)', params: idParams },
  }, async (request) => {
    await coproducers.delete(request.account.id, request.params.id);
    return { success: true, data: { id: request.params.id, deleted: true } };
  });
}
