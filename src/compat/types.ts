import type { IParseOptions } from 'qs';
import type { AmountUnit } from '../mapping/functions';
import type { WireSettings } from '../gateways/types';

/**
 * Compatibility mode: the contract one gateway implements (src/gateways/<id>/compat.ts, reached through
 * GatewayDescriptor.compat) so RouteGate serves that gateway's own API to clients written for it.
 * docs/compatibility.md walks through it step by step. Payload shapes stay in mappings/<id>/native.*.jsonata;
 * this is what a mapping cannot say: which native paths exist, where ids and amounts are, and the small
 * shaping of follow-up answers (a refund object, a list page, a customer).
 */

/**
 * What RouteGate does for one native path: the generic operations every compat gateway maps its paths to.
 * `cancelOrRefund` is one route that does either by the charge's state, as some gateways' APIs have it: it cancels a
 * charge that is still cancellable (pre-authorized, pending) when no amount or the whole amount is named, else
 * refunds (the amount, or all). Its answer is shaped by `answers.charge` (as `cancel`) or `answers.refund`.
 */
export type CompatOperation = 'create' | 'retrieve' | 'list' | 'capture' | 'cancel' | 'refund' | 'cancelOrRefund' | 'refundList' | 'refundRetrieve' | 'customerCreate' | 'customerRetrieve' | 'customerList';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The native request as RouteGate received it: body decoded (JSON, or form with the surface's qs options). */
export interface NativeRequest {
  method: HttpMethod;
  /** The native path below the gateway's base, without the query string (e.g. /v1/payment_intents/pi_1/capture). */
  path: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

/**
 * Where a value is read from: `param:<name>` (a path parameter), `body:<dotted.path>` or `query:<dotted.path>`.
 * A list is tried in order; the first present value wins (a refund naming the payment or its charge: `body:payment_intent`, `body:charge`).
 */
export type ValueSource = `param:${string}` | `body:${string}` | `query:${string}`;

/** One native path RouteGate translates. Paths use `:name` parameters; a trailing slash is always tolerated. */
/**
 * One native path a gateway's allowlist lets through untranslated: `:name` stands for one path segment (an id).
 * Kept in each gateway's folder (src/gateways/<id>/passthrough.ts) and listed in docs/security.md.
 */
export interface PassthroughRoute {
  method: HttpMethod;
  path: string;
}

export interface CompatRoute {
  method: HttpMethod;
  path: string;
  operation: CompatOperation;
  /** The charge (or customer) id the client sent: any id RouteGate returned for it. */
  id?: readonly ValueSource[];
  /** An amount, in the gateway's own unit (see CompatSurface.amountUnit); absent = the whole amount. */
  amount?: readonly ValueSource[];
  /** refundRetrieve: the refund's id, as the surface's refund answer gave it. */
  refund?: readonly ValueSource[];
  /**
   * Several operations on one method and path (a PUT /payments/{id} that captures or cancels by its body):
   * the first route whose `when` accepts the request is used.
   */
  when?(request: NativeRequest): boolean;
}

/** A charge as the shaping functions get it. */
export interface CompatCharge {
  /** RouteGate's normalized charge view (src/charges/response-format.ts chargeView) plus `refs`. */
  view: Record<string, unknown>;
  /** The charge in the gateway's own create-response shape: the raw gateway body, or native.response's output. */
  native: unknown;
  /** true when the compat gateway itself holds the charge (`native` is then its raw body where RouteGate had one). */
  processedHere: boolean;
  /** The mode of the account's own credentials at the compat gateway, where the surface tells one (CompatSurface.livemode). */
  livemode?: boolean;
}

/** What the surface answers for each follow-up (status defaults to 200). */
export interface NativeAnswer { status?: number; body: unknown }

export interface RefundFacts {
  /** The gateway's refund id, when the gateway gave one. */
  refundId?: string;
  /** Cents refunded by this call. */
  amount: number;
  status?: 'pending' | 'succeeded' | 'failed';
  /** A number unique to this refund within the charge (for a synthesized id). */
  seq: number;
  /** When RouteGate recorded the refund (ISO instant). */
  createdAt?: string;
  /** The gateway's raw answer to the refund call, when the compat gateway itself refunded in this call. */
  raw?: unknown;
}

export interface CompatCustomer {
  /** RouteGate's customer view (id cus_rg_..., externalId, gateway, name, email, document, ...). */
  view: Record<string, unknown>;
  /** The gateway's raw answer when the compat gateway created it in this call. */
  raw?: unknown;
  processedHere: boolean;
  /** As CompatCharge.livemode. */
  livemode?: boolean;
}

export interface CompatSurface {
  /** The native paths RouteGate translates (create, retrieve, list, capture, cancel, refund, customers). */
  routes: readonly CompatRoute[];
  /**
   * The first path segments of the gateway's API at the root (e.g. `/v1`): root requests under them are
   * served for accounts in this compatibility mode; what `routes` does not list is passed through to the gateway.
   */
  prefixes: readonly string[];
  /**
   * The gateway's payment ids are numbers (typed SDKs parse them so): a charge another gateway processed is answered by
   * its numeric id (migration 022; native.response reads it as `charge.numericId`), and follow-ups accept it.
   */
  numericIds?: boolean;
  /** The HTTP status of a successful create, as the gateway answers it (default 200). */
  createStatus?: number;
  /** Bodies in application/x-www-form-urlencoded are accepted and decoded with qs and these options. */
  form?: IParseOptions;
  /** The gateway's amount unit in native bodies; default the adapter's amountUnit. */
  amountUnit?(wire: WireSettings): AmountUnit;
  /**
   * Whether the account's credentials at this gateway are live ones, for native objects that carry their mode
   * (bound as $livemode in native.response); absent, the objects RouteGate builds say nothing about it.
   */
  livemode?(credentials: Record<string, string> | undefined): boolean;
  /** Extra bindings native.request needs besides $now (e.g. $amountUnit where the unit is a deployment setting). */
  bindings?(wire: WireSettings): Record<string, unknown>;
  /**
   * The header the gateway's clients send their idempotency key in, when it is not `Idempotency-Key` (e.g.
   * `x-idempotency-key`): on translated writes RouteGate honours it as its own Idempotency-Key.
   */
  idempotencyHeader?: string;
  /** The gateway's own auth header for a passed-through call, from the account's stored credentials. */
  passthroughHeaders(credentials: Record<string, string>): Record<string, string>;
  /**
   * The only untranslated paths passed through, for accounts an operator turned passthrough on for
   * (src/gateways/<id>/passthrough.ts): read-only and charge-related; everything else answers the native 404.
   */
  passthrough: readonly PassthroughRoute[];
  /**
   * Whether an unauthenticated request at an ambiguous root path looks like this gateway's client (an SDK
   * header): only used to pick the error shape when the key is missing or wrong and several gateways share the path.
   */
  recognizes?(headers: Record<string, string | string[] | undefined>): boolean;
  /** Shaping of follow-up answers; the create answer is native.response's (or the raw body). */
  answers: {
    /**
     * The compat gateway's raw charge body as its client reads it (default unchanged): e.g. the client's own reference
     * put back where RouteGate keeps its charge id at the gateway. Applied to create and follow-up answers alike.
     */
    raw?(raw: unknown, view: Record<string, unknown>, request: unknown): unknown;
    /**
     * What native.response cannot compute, added to its output (create, follow-ups, lists) for a charge another gateway
     * holds: e.g. a QR code image drawn from the pix EMV text when the processing gateway gave only an image URL.
     */
    complete?(native: unknown, view: Record<string, unknown>): Promise<unknown>;
    /** retrieve, capture, cancel; default: `charge.native` with status 200. May be async (an image drawn for the answer). */
    charge?(charge: CompatCharge, request: NativeRequest, operation: CompatOperation): NativeAnswer | Promise<NativeAnswer>;
    refund(charge: CompatCharge, refund: RefundFacts, request: NativeRequest): NativeAnswer;
    /**
     * refundList (and the lookup of refundRetrieve, when the body is an array): the charge's refunds RouteGate made,
     * oldest first; default an array of `refund` answers.
     */
    refundList?(charge: CompatCharge, refunds: RefundFacts[], request: NativeRequest): NativeAnswer;
    /** `items` newest first; `hasMore` when a further page exists. */
    list(items: CompatCharge[], hasMore: boolean, request: NativeRequest): NativeAnswer;
    /** The native customer-create body -> RouteGate's customer input (name, email, document, phone, address, metadata). */
    customerInput(request: NativeRequest): Record<string, unknown>;
    customer(customer: CompatCustomer, request: NativeRequest, operation: CompatOperation): NativeAnswer;
    /** A page of the account's customers (operation customerList), newest first. */
    customerList?(items: CompatCustomer[], hasMore: boolean, request: NativeRequest): NativeAnswer;
  };
  /**
   * List paging: how many per page (default 10) and the cursor (an id RouteGate returned) to start after, or an
   * offset (up to 1000) for APIs that page by offset.
   */
  listQuery?(request: NativeRequest): { limit?: number; after?: string; offset?: number };
  /**
   * The gateway's idempotency header(s), tried in order (default `Idempotency-Key`), and whether a key is scoped to
   * its endpoint (method and path) as the gateway does, so one key reused on another path is another request.
   */
  idempotency?: { headers?: readonly string[]; perEndpoint?: boolean };
}
