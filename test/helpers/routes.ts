import type { FastifyInstance } from 'fastify';

export interface Route { method: string; url: string }

/** Every route and method, read from the router's radix tree (printRoutes: a path is its nodes joined), not listed by hand. */
export function listRoutes(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const m = /^([│ ]*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    const url = (stack[depth - 1] ?? '') + m[2];
    stack.push(url);
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) routes.push({ method, url });
  }
  return routes;
}
