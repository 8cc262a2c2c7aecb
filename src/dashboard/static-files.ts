import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ROOT } from '../lib/paths';
import { rgError } from '../errors';

const DIR = path.join(ROOT, 'src', 'dashboard', 'static');
const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.svg': 'image/svg+xml' };

/**
 * The dashboard's stylesheet, script and icon, read once at start-up and served by name from that fixed set: no path
 * from the request ever reaches the file system.
 */
export function staticRoutes(app: FastifyInstance): void {
  const files = new Map(fs.readdirSync(DIR).filter((f) => TYPES[path.extname(f)]).map((f) => [f, { body: fs.readFileSync(path.join(DIR, f)), type: TYPES[path.extname(f)] }]));
  app.get<{ Params: { file: string } }>('/static/:file', { config: { audience: 'public' } }, async (request, reply) => {
    const file = files.get(request.params.file);
    if (!file) throw rgError('NOT_FOUND');
    return reply.type(file.type).header('cache-control', 'no-cache').send(file.body);
  });
}
