import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store';
import type { AccountRow } from '../store/accounts';
import type { CredentialVault } from '../accounts/credential-vault';
import type { SchemaValidator } from '../http/schemas';
import type { ChargeService } from '../charges/orchestrator';
import type { LoginService } from '../auth/logins';
import type { EventService } from '../webhooks/events';
import type { CoproducerService } from '../splits/coproducers';
import type { SessionKind, SessionService } from '../auth/sessions';
import type { Html } from './html';

declare module '@fastify/secure-session' {
  interface SessionData {
    sid: string;
    flash: string;
    /** A just-generated API key, shown on the next page view only. */
    newKey: string;
    _csrf: string;
  }
}

export interface DashboardUser {
  kind: SessionKind;
  subjectId: string;
  email: string;
  /** An owner's account (always the one the session was started for; pages never take it from the URL). */
  account?: AccountRow;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboardUser: DashboardUser | null;
  }
  interface FastifyContextConfig {
    /** Who may open a dashboard route; every route declares it. */
    audience?: 'public' | 'operator' | 'owner' | 'signed-in';
  }
}

export interface PageContent {
  title: string;
  body: Html;
  status?: number;
}

/** What every page module gets: the same services the API and the CLI use. */
export interface DashboardDeps {
  store: Store;
  vault: CredentialVault;
  validator: SchemaValidator;
  charges: ChargeService;
  logins: LoginService;
  events: EventService;
  coproducers: CoproducerService;
  sessions: SessionService;
  /** RouteGate's public base URL, read when a page is drawn (the sandbox sets it once it listens). */
  publicUrl: () => string;
  /** The mapping set in use, for the operator's Mappings page (absent: the page says so). */
  mappingState?: import('../mapping/mapping-state').MappingState;
  /** The page in the dashboard's layout, with the navigation for the signed-in user and a flash message if any. */
  render(request: FastifyRequest, reply: FastifyReply, page: PageContent): FastifyReply;
  /** This request's CSRF token for its forms. */
  csrf(reply: FastifyReply): string;
  /** Redirect after a successful POST, with a message for the next page (POST/redirect/GET). */
  done(request: FastifyRequest, reply: FastifyReply, to: string, message: string): FastifyReply;
}

/** One page (or a few routes that belong together): `src/dashboard/pages/<name>.ts`, listed in pages/index.ts. */
export interface DashboardPage {
  /** An entry in the navigation of the audience that may open it. */
  nav?: { label: string; path: string; audience: 'operator' | 'owner' };
  routes(app: FastifyInstance, deps: DashboardDeps): void;
}

/** The owner's account; the guard has checked it exists. */
export function ownAccount(request: FastifyRequest): AccountRow {
  return request.dashboardUser!.account!;
}

export const PREFIX = '/dashboard';
