import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet from '@fastify/helmet';
import formbody from '@fastify/formbody';
import secureSession from '@fastify/secure-session';
import csrf from '@fastify/csrf-protection';
import { rgError, type RouteGateError } from '../errors';
import { toRouteGateError } from '../http/error-handler';
import { html } from './html';
import { layout } from './layout';
import { staticRoutes } from './static-files';
import { PAGES } from './pages';
import type { DashboardDeps, DashboardUser } from './context';

export interface DashboardOptions extends Omit<DashboardDeps, 'render' | 'csrf' | 'done'> {
  sessionKey: Buffer;
  sessionTtlMs: number;
  /** Secure cookies (https only) in production. */
  secureCookies: boolean;
}

// Strict: only this origin's files; no inline script or style, no plugins, no framing, forms post only here.
const CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'none'"], scriptSrc: ["'self'"], styleSrc: ["'self'"], imgSrc: ["'self'", 'data:'], connectSrc: ["'self'"],
    formAction: ["'self'"], frameAncestors: ["'none'"], baseUri: ["'none'"], objectSrc: ["'none'"],
  },
};

/**
 * The web dashboard under /dashboard: server-rendered pages over the same services as the API and the CLI.
 * Its own encapsulated context: form bodies, sessions, CSRF, security headers and HTML errors apply here only,
 * so the JSON API keeps refusing form bodies and answering JSON.
 */
export async function dashboardPlugin(app: FastifyInstance, opts: DashboardOptions): Promise<void> {
  // HTML pages are not part of the JSON API: kept out of the OpenAPI document at /docs.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(helmet, { contentSecurityPolicy: CSP, hsts: opts.secureCookies ? undefined : false });
  await app.register(formbody);
  await app.register(secureSession, {
    key: opts.sessionKey, cookieName: 'rg_session', expiry: Math.floor(opts.sessionTtlMs / 1000),
    cookie: { path: '/dashboard', httpOnly: true, sameSite: 'strict', secure: opts.secureCookies, maxAge: Math.floor(opts.sessionTtlMs / 1000) },
  });
  await app.register(csrf, { sessionPlugin: '@fastify/secure-session' });

  const nav = PAGES.flatMap((p) => (p.nav ? [p.nav] : []));
  const tokens = new WeakMap<FastifyReply, string>();
  const deps: DashboardDeps = {
    ...opts,
    csrf(reply) {
      let token = tokens.get(reply);
      if (!token) {
        token = reply.generateCsrf();
        tokens.set(reply, token);
      }
      return token;
    },
    render(request, reply, page) {
      // An error raised before the session is read (the per-IP rate limit answers first) renders without one.
      const session = request.session as typeof request.session | null;
      const flash = session?.get('flash');
      if (flash) session!.set('flash', undefined);
      const body = layout({ ...page, user: request.dashboardUser, nav, currentPath: request.url, csrf: session ? deps.csrf(reply) : '', flash });
      return reply.code(page.status ?? 200).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body.value);
    },
    done(request, reply, to, message) {
      request.session.set('flash', message);
      return reply.redirect(to, 303);
    },
  };

  app.decorateRequest('dashboardUser', null);
  // Who is signed in, and may they open this route? Before the body is read.
  app.addHook('onRequest', async (request, reply) => {
    request.dashboardUser = await currentUser(request, deps);
    const audience = request.routeOptions.config.audience ?? 'signed-in';
    if (audience === 'public') return;
    const user = request.dashboardUser;
    if (!user) {
      request.session.set('flash', 'Please sign in.');
      return reply.redirect('/dashboard/login', 303);
    }
    if (audience !== 'signed-in' && user.kind !== audience) throw rgError('DASHBOARD_FORBIDDEN', { audience: audience === 'owner' ? 'account owner' : audience });
  });
  // Every form post carries the session's CSRF token (login included, against login CSRF).
  app.addHook('preHandler', (request, reply, next) => {
    if (request.method !== 'POST') return next();
    app.csrfProtection(request, reply, next);
  });

  app.setErrorHandler((err, request, reply) => {
    const rg = dashboardError(err);
    if (rg.statusCode >= 500) request.log.error({ err }, 'dashboard error');
    for (const [name, value] of Object.entries(rg.extra.headers ?? {})) reply.header(name, value);
    const message = rg.statusCode >= 500 ? `Something went wrong; the error is logged with request id ${request.id}.` : rg.message;
    return deps.render(request, reply, { title: 'Error', status: rg.statusCode, body: html`<h1>${rg.statusCode === 404 ? 'Not found' : 'Cannot do that'}</h1><div class="alert error" role="alert"><p>${message}</p></div><p><a href="/dashboard">Back to the dashboard</a></p>` });
  });
  app.setNotFoundHandler((request, reply) => {
    return deps.render(request, reply, { title: 'Not found', status: 404, body: html`<h1>Not found</h1><p>No dashboard page at ${request.url.split('?')[0]}.</p><p><a href="/dashboard">Back to the dashboard</a></p>` });
  });

  app.get('/', { config: { audience: 'public' } }, async (request, reply) => {
    const user = request.dashboardUser;
    return reply.redirect(!user ? '/dashboard/login' : user.kind === 'operator' ? '/dashboard/accounts' : '/dashboard/overview', 303);
  });
  staticRoutes(app);
  for (const page of PAGES) page.routes(app, deps);
}

async function currentUser(request: FastifyRequest, deps: DashboardDeps): Promise<DashboardUser | null> {
  const sid = request.session?.get('sid');
  const subject = await deps.sessions.check(sid);
  if (!subject) return null;
  if (subject.kind === 'operator') {
    const op = await deps.store.logins.operatorById(subject.subjectId);
    return op ? { kind: 'operator', subjectId: op.id, email: op.email } : null;
  }
  const account = await deps.store.accounts.get(subject.subjectId);
  const owner = await deps.store.logins.ownerOf(subject.subjectId);
  // A deactivated account's owner is signed out at the next request, as its API key is refused.
  if (!account || !owner || !account.active) {
    await deps.sessions.end(sid!);
    return null;
  }
  return { kind: 'owner', subjectId: account.id, email: owner.email, account };
}

function dashboardError(err: unknown): RouteGateError {
  const code = (err as { code?: string }).code;
  if (code === 'FST_CSRF_INVALID_TOKEN' || code === 'FST_CSRF_MISSING_SECRET') return rgError('CSRF_INVALID');
  return toRouteGateError(err as Error);
}
