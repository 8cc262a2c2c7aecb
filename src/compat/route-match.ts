import FindMyWay from 'find-my-way';
import type { CompatRoute, HttpMethod, NativeRequest } from './types';

/** A surface's native paths, matched by find-my-way (fastify's own router), trailing and doubled slashes tolerated. */
export class NativeRouter {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });

  constructor(routes: readonly CompatRoute[]) {
    const groups = new Map<string, CompatRoute[]>();
    for (const r of routes) {
      const key = `${r.method} ${r.path}`;
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    for (const group of groups.values()) this.router.on(group[0].method, group[0].path, () => undefined, group);
  }

  /** Whether any translated route has this method and path (before its `when`, which may read the body, is asked). */
  knows(method: string, path: string): boolean {
    return this.router.find(method as HttpMethod, path) !== null;
  }

  /** The route for a request (the first of a method and path whose `when` accepts it) and its path parameters. */
  match(method: string, path: string, request: Omit<NativeRequest, 'params'>): { route: CompatRoute; params: Record<string, string> } | undefined {
    const found = this.router.find(method as HttpMethod, path);
    if (!found) return undefined;
    const params = Object.fromEntries(Object.entries(found.params).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const route = (found.store as CompatRoute[]).find((r) => !r.when || r.when({ ...request, params }));
    return route && { route, params };
  }
}
