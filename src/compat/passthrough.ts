import type { HttpMethod, PassthroughRoute } from './types';

// One plain segment: letters, digits, `_`, `-`, `.` inside. No encoded characters (`%2f`, `%2e`), no empty or dot
// segments: a path that could mean another path at the gateway never matches.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** Compiled once per gateway: `GET /v1/charges/:id` -> method + segment matchers. */
export class PassthroughAllowlist {
  private readonly routes: ReadonlyArray<{ method: HttpMethod; segments: ReadonlyArray<string | null> }>;

  constructor(routes: readonly PassthroughRoute[]) {
    this.routes = routes.map((r) => ({ method: r.method, segments: r.path.split('/').slice(1).map((s) => (s.startsWith(':') ? null : s)) }));
  }

  /** Whether `method path` (the native path below the gateway's base, no query) is on the list. */
  allows(method: string, path: string): boolean {
    const segments = path.split('/').slice(1);
    if (path[0] !== '/' || !segments.every((s) => SEGMENT.test(s) && s !== '.' && s !== '..')) return false;
    return this.routes.some((r) => r.method === method && r.segments.length === segments.length && r.segments.every((s, i) => s === null || s === segments[i]));
  }
}
