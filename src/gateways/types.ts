/** A canonical gateway id: a folder name listed in src/gateways/registry.ts. */
export type GatewayId = string;

/** What adapters need of the HTTP client (src/gateways/http-client.ts implements it). */
export interface HttpSender {
  send(req: GatewayRequest): Promise<GatewayReply>;
}

/** What adapters need of a gateway's compiled mappings (src/mapping/loader.ts MappingSet implements it). */
export interface MappingEvaluator {
  evaluate<T = unknown>(name: string, input: unknown, bindings?: Record<string, unknown>): Promise<T>;
}

export interface GatewayRequest {
  gateway: GatewayId;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Response timeout: how long to wait once the request is written. */
  timeoutMs: number;
  /** Epoch ms past which nothing may be waited for (the client request's deadline). */
  deadline?: number;
}

export interface GatewayReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body; undefined when the body is empty or not JSON. */
  json: unknown;
  jsonError: boolean; // body present but not valid JSON
  durationMs: number;
}

export type PaymentMethod = 'credit_card' | 'debit_card' | 'boleto' | 'pix';
export const PAYMENT_METHODS: PaymentMethod[] = ['credit_card', 'debit_card', 'boleto', 'pix'];
/**
 * `disputed`: a chargeback is open; `charged_back`: a chargeback was lost and the money went back to the payer by
 * it (docs/charges.md, "Disputes"). Neither is a refund: refundedAmount never moves with a dispute.
 */
export type ChargeStatus = 'approved' | 'pending' | 'processing' | 'declined' | 'cancelled' | 'refunded' | 'failed' | 'disputed' | 'charged_back';
export type DeclineCode = 'card_declined' | 'insufficient_funds' | 'expired_card' | 'incorrect_cvc' | 'processing_error';

/** The normalized payer address (Brazilian shape; state is the two-letter UF, postalCode the 8-digit CEP). */
export interface PayerAddress {
  street?: string; number?: string; complement?: string; district?: string; city?: string; state?: string; postalCode?: string; country?: string;
}

/** The payer as a charge carries it (inline `customer`, or the stored customer behind `customerId`). */
export interface Payer {
  name?: string; email?: string; document?: string; phone?: string; address?: PayerAddress;
  /** The buyer's IP address (some gateways want it on card payments); default the client's IP as RouteGate saw it. */
  ip?: string;
  metadata?: Record<string, string>;
}

/** 3-D Secure result of an authentication the merchant ran before the charge (debit cards where the gateway requires it). */
export interface ThreeDSAuthentication {
  eci?: string; cavv?: string; transactionId?: string; dsTransactionId?: string; version?: string;
}

/** The normalized charge request after schema validation (SPEC.md "Charge (normalized request)"). */
export interface NormalizedCharge {
  gateway?: string;
  paymentMethod: PaymentMethod;
  amount: number; // integer cents
  currency: string; // upper-case ISO, default BRL
  description?: string;
  capture: boolean; // default true
  customerId?: string;
  customer?: Payer;
  /** string keys and values (the strictest gateway's limits: 50 keys, 40-char keys, 500-char values); returned as given */
  metadata?: Record<string, string>;
  /** The client's IP as RouteGate saw it (set by the route, not by the client). */
  clientIp?: string;
  debitCard?: { authentication?: ThreeDSAuthentication };
  creditCard?: {
    number?: string; holderName?: string; expMonth?: number; expYear?: number; cvv?: string;
    installments?: number; token?: string; paymentMethodId?: string;
    /** The plan's total as quoted (GET /api/v1/installments), cents: the charge is refused if it is no longer that. */
    installmentsTotal?: number;
    /** A gateway's stored quote (GET /api/v1/installments with gateway and bin): the plan is that quote's for `installments`. */
    installmentsQuoteId?: string;
    /**
     * Set by the router on the quoting gateway's attempt only: the plan is that gateway's own (its interest, priced
     * for its issuer), sent as its API takes such a plan (the adapter's InstallmentRule.quotedPlan). Cents.
     */
    gatewayPlan?: { price: number; total: number; interest: number; issuerId?: string };
  };
  pix?: { expiresInSeconds?: number };
  boleto?: { dueDate?: string; instructions?: string };
  /** The split as the client sent it (SPEC.md's `split` items); never sent to a gateway as it is. */
  split?: SplitItemRequest[];
  /**
   * The split resolved for the attempted gateway (set by the router on each attempt, read by charge.request):
   * recipients in that gateway's ids, amounts in cents. A charge with `split` never reaches an adapter without it.
   */
  resolvedSplit?: ResolvedSplit;
}

/** One split item as the client sends it: exactly one of recipient_id (a gateway's own id) or coproducerEmail. */
export interface SplitItemRequest {
  /** `flat` is accepted as another name of `fixed` (one gateway's word for it). */
  type: 'percentage' | 'fixed' | 'flat';
  /** percentage: a percent in (0, 100], at most two decimals; fixed: cents. */
  amount: number;
  recipient_id?: string;
  coproducerEmail?: string;
  /** The recipient pays (part of) the gateway's processing fee. */
  chargeProcessingFee?: boolean;
  /** The recipient is liable for chargebacks. */
  liable?: boolean;
}

/** One split item as applied on one gateway: the recipient in that gateway's ids, the share in cents. */
export interface ResolvedSplitItem {
  recipientId: string;
  type: 'percentage' | 'fixed';
  /** percentage items: the percent asked for (`amount` is what it comes to in cents, rounded down). */
  percentage?: number;
  amount: number;
  coproducerEmail?: string;
  chargeProcessingFee: boolean;
  liable: boolean;
}

export interface ResolvedSplit {
  items: ResolvedSplitItem[];
  /** Cents that stay with the merchant: the charge amount less every item (rounding leftovers included). */
  remainder: number;
  /** The account's own recipient at this gateway, where the gateway wants the merchant's share in the split too. */
  ownRecipientId?: string;
}

/**
 * What a gateway can do with splits (absent on an adapter: it cannot split a payment). The router checks it
 * before any network call; the gateway's charge.request mapping encodes `resolvedSplit`.
 */
export interface SplitCapability {
  /** At most this many recipients per charge (beside the merchant). */
  maxRecipients?: number;
  /** The item options the gateway can express; `true` on any other skips the gateway. */
  options: ReadonlyArray<'chargeProcessingFee' | 'liable'>;
  /**
   * The credential field holding the account's own recipient at the gateway, when its split must name the
   * merchant too (the rules sum to the whole payment there).
   */
  ownRecipientCredential?: string;
  /** One line for the docs table: how the split is sent. */
  describe: string;
}

/** What every `charge.response` mapping produces (the gateway body normalized). */
export interface NormalizedChargeResult {
  externalId: string;
  status: ChargeStatus;
  amount: number; // cents
  paidAmount: number; // cents
  refundedAmount: number; // cents
  currency: string; // upper-case ISO
  paymentMethod?: PaymentMethod;
  captured?: boolean; // false while a pre-authorization awaits capture
  pixQrCode?: string;
  pixCopyPaste?: string;
  boletoUrl?: string;
  boletoBarcode?: string; // always the 47-digit typeable line (linha digitavel), digits only
  boletoBarcodeNumber?: string; // the 44-digit barcode number, where the gateway gives it
  pix?: { expiresAt?: string }; // ISO timestamp
  /** dueDate YYYY-MM-DD; a hybrid boleto's pix (where the gateway offers one): its EMV text and QR image. */
  boleto?: { dueDate?: string; pixCopyPaste?: string; pixQrCode?: string };
  card?: NormalizedCard;
  declineCode?: DeclineCode; // set when status is declined/failed because of the card
  gatewayMessage?: string; // the gateway's own text for a decline or failure
  /** Extra gateway ids a follow-up call needs (e.g. a charge id beside an order id). Strings only. */
  refs?: Record<string, string>;
  /**
   * A card payment in installments as the gateway's answer states it, cents: where the gateway adds its own interest
   * (it was sent the price), the buyer's total and installment.
   */
  installments?: { count?: number; installmentAmount?: number; totalAmount?: number };
  /** Where the gateway's answer shows a chargeback (status disputed or charged_back): what it says of it, cents. */
  dispute?: { status?: 'open' | 'won' | 'lost'; amount?: number; reason?: string };
}

/** Card facts a gateway returns; brand in one lowercase vocabulary (visa, mastercard, amex, elo, hipercard, ...). */
export interface NormalizedCard { brand?: string; last4?: string; expMonth?: number; expYear?: number }

export interface NormalizedCustomer {
  name: string; email: string; document: string; phone?: string; address?: PayerAddress; metadata?: Record<string, string>;
}
export interface NormalizedCustomerResult { externalId: string; name?: string; email?: string; document?: string; phone?: string }

/** What a follow-up operation needs to find the charge at the gateway. */
export interface ChargeRef {
  externalId: string; paymentMethod: PaymentMethod; amount: number; refs?: Record<string, string>;
  /** The split the charge was made with (refunds on split charges follow the gateway's rule for them). */
  split?: AppliedSplitItem[];
}

/** One split item as the charge row stores it and the API shows it (`data.split[]`). */
export interface AppliedSplitItem {
  type: 'percentage' | 'fixed';
  recipient_id: string;
  coproducerEmail?: string;
  percentage?: number;
  /** cents */
  amount: number;
  chargeProcessingFee: boolean;
  liable: boolean;
}

/** What a `refund.response` mapping produces from the gateway's answer to a refund call. */
export interface RefundResult {
  refundId?: string;
  amount?: number;
  /** One vocabulary on all five gateways; the gateway's own word is `gatewayStatus`. */
  status?: 'pending' | 'succeeded' | 'failed';
  gatewayStatus?: string;
}

export interface ChargeOutcome {
  normalized: NormalizedChargeResult;
  /** The gateway body of the main call, as received (responseFormat raw / full). */
  raw: unknown;
  /** `raw`'s text as it came off the wire, where `raw` is exactly that text parsed: the answer embeds it as is. */
  rawText?: string;
  /** Set by refunds: the refund the gateway recorded (its id is stored on the attempt). */
  refund?: RefundResult;
}

export interface CustomerOutcome { normalized: NormalizedCustomerResult; raw: unknown }

/** Everything an adapter operation needs; built by the orchestrator per attempt. */
export interface CallContext {
  gateway: GatewayId;
  baseUrl: string; // without trailing slash, e.g. https://api.example.com or http://127.0.0.1:4010/<gateway id>
  credentials: Record<string, string>; // decrypted; never log
  http: HttpSender;
  mappings: MappingEvaluator; // this gateway's compiled mappings
  /** Idempotency key for this attempt's first write call (derived from charge id + attempt). */
  idempotencyKey: string;
  /** RouteGate's internal charge id, sent as metadata/reference where the gateway has a field for it. */
  chargeId: string;
  /** Response timeout of each call. */
  timeoutMs: number;
  /** Epoch ms: the client request's deadline; no call waits past it. */
  deadline?: number;
  /** Deployment wire settings (src/config.ts); absent = the real APIs' defaults (DEFAULT_WIRE). */
  wire?: WireSettings;
  /** The account's webhook URL for this gateway, sent on the charge where the gateway takes one. */
  webhookUrl?: string;
}

/**
 * Where SPEC.md and a real API disagree on the wire, the deployment picks (DESIGN.md): each gateway declares its
 * settings (GatewayDescriptor.wireSettings), read once from the environment, keyed by variable name.
 */
export type WireSettings = Readonly<Record<string, string>>;

/** `needs: 'customerId'`: a customer created at this gateway first; `needs: 'customer'`: the buyer inline. */
export type Capability = 'supported' | 'unsupported' | { needs: 'customerId' | 'customer' };
export type ChargeOperation = 'charge' | 'capture' | 'cancel' | 'refund' | 'partial_refund';

/**
 * A pre-call requirement as data (real-API rules a capability cell cannot say): when a charge of one of
 * `methods` (and, if given, carrying `when`) lacks any of `needs`, the router skips this gateway with `reason`
 * before any network call, or answers with it when no gateway is left. Paths: `payer.<path>` (the inline
 * customer, else the stored one behind customerId), `charge.<path>`, `setting.<name>` (an account setting that
 * must be true).
 */
export interface ChargeRequirement {
  methods: PaymentMethod[];
  when?: string;
  needs: string[];
  reason: 'RAW_CARD_NOT_ACCEPTED' | 'MISSING_PAYER_DATA' | 'AUTHENTICATION_REQUIRED';
  /** Why the real gateway needs it; the router adds the missing field. */
  why: string;
}

/**
 * What a gateway's API takes for a card charge in installments (docs/installments.md): the currencies it offers them
 * in, its highest count and its smallest installment (cents). A plan outside these is not sent there: the router
 * skips the gateway with the rule's reason.
 */
export interface InstallmentRule {
  currencies: readonly string[];
  maxCount: number;
  minInstallmentAmount?: number;
  /** The gateway's documented limit, said once in the skip's message. */
  why: string;
  /**
   * How the gateway charges a plan of its own quote (its interest): `price`, it is sent the price and the count and
   * adds its interest itself, answering the buyer's total; `total`, it is sent the total with the interest stated.
   * Absent: the gateway does not quote, and is sent the total like any plan.
   */
  quotedPlan?: 'price' | 'total';
}

/** What a quote asks a gateway that prices installment plans itself (docs/installments.md, "Gateway quotes"). */
export interface InstallmentQuoteRequest {
  /** The price, cents. */
  amount: number;
  /** The card's first 6 to 8 digits: the gateway prices per card brand or issuer. */
  bin: string;
  /** The account's most installments and interest-free counts (a gateway that takes them is told). */
  maxCount: number;
  interestFreeCount: number;
}

/** One plan as the gateway priced it, in cents. */
export interface GatewayQuotedPlan {
  count: number;
  installmentAmount: number;
  totalAmount: number;
  interestFree: boolean;
  /** Percent a month where the gateway states one; null where it states only the plan's total. */
  monthlyInterestRate: number | null;
  /** The card issuer whose plan this is, where the gateway prices per issuer (a payment of the plan names it). */
  issuerId?: string;
}

/** Capabilities as data: the router checks them before any network call. */
export type CapabilityTable = Record<PaymentMethod, Record<ChargeOperation, Capability>> & { customer: Capability };

/**
 * One adapter per gateway: transport, auth, paths, extra calls and error classification.
 * Payload shapes live in mappings/<gateway>/*.jsonata, never here.
 */
export interface GatewayAdapter {
  id: GatewayId;
  amountUnit: 'minor' | 'major';
  /** Production base URL; ROUTEGATE_<GATEWAY>_URL overrides it. */
  defaultBaseUrl: string;
  capabilities: CapabilityTable;
  /** Split payments; absent: the gateway cannot split (a split charge skips it). */
  split?: SplitCapability;
  /** What the real API refuses a charge without (checked by the router with the capabilities). */
  requirements?: readonly ChargeRequirement[];
  /** Card installments as the real API takes them; absent: the gateway charges cards in one payment only. */
  installments?: InstallmentRule;
  /** ISO 4217 codes (upper-case) this gateway charges cards in; pix and boleto are BRL everywhere. */
  currencies: readonly string[];
  /**
   * true when the gateway keeps idempotency keys on creates: an unknown create outcome is settled by replaying
   * the create under the same key (the gateway answers the first result, or makes the one charge).
   */
  keepsIdempotencyKeys: boolean;
  /**
   * Read-only: find the charge RouteGate created under `reference` (its charge id, sent as metadata, code,
   * externalReference or external_reference). Resolves null when the gateway has none. Never creates anything.
   */
  lookupCharge?(ctx: CallContext, reference: string, paymentMethod: PaymentMethod): Promise<ChargeOutcome | null>;
  /** true when lookupCharge's null proves the gateway never took the charge (its lookup reads are consistent). */
  lookupProvesAbsence?: boolean;
  /**
   * RouteGate's reference as the gateway stores it on a payment it answered (`retrieveCharge`'s raw body), for a
   * gateway with no lookup by reference: a notification's payment id is read at the gateway and taken only when the
   * gateway's own answer carries the charge's reference.
   */
  referenceOf?(raw: unknown): string | undefined;
  createCharge(ctx: CallContext, charge: NormalizedCharge): Promise<ChargeOutcome>;
  retrieveCharge(ctx: CallContext, ref: ChargeRef): Promise<ChargeOutcome>;
  captureCharge(ctx: CallContext, ref: ChargeRef, amount?: number): Promise<ChargeOutcome>;
  cancelCharge(ctx: CallContext, ref: ChargeRef): Promise<ChargeOutcome>;
  /**
   * amount in cents; undefined = refund whatever remains. Returns the charge as it stands after the refund. A refund
   * the gateway accepted whose read-back failed throws a GatewayFailure with `info.accepted` (never a failure).
   */
  refundCharge(ctx: CallContext, ref: ChargeRef, amount?: number): Promise<ChargeOutcome>;
  /**
   * Read-only: the refund RouteGate made under `operationKey` (ctx.idempotencyKey of that refund, which the refund
   * carries in a field of its own at the gateway), with the charge as it stands; null when the gateway lists no such
   * refund (yet). For gateways that keep no idempotency keys: how an unknown refund is settled by its identity.
   */
  findRefund?(ctx: CallContext, ref: ChargeRef, operationKey: string): Promise<ChargeOutcome | null>;
  /**
   * Read-only: a refund the gateway answered as in process, by the id it gave it (RefundResult.refundId), with the
   * charge as it stands; null when the gateway shows no such refund. How a pending refund is settled by a re-read
   * (docs/charges.md, "Refund lifecycle"); absent: by findRefund under its operation key.
   */
  readRefund?(ctx: CallContext, ref: ChargeRef, refundId: string): Promise<ChargeOutcome | null>;
  /**
   * true when this refusal of a refund means "not yet" rather than "no": the gateway did nothing, and the same
   * refund sent later can pass (a payment it has not propagated yet, a balance not yet available). Such a refund is
   * stored pending and sent again by RouteGate, never answered as a failure that invites a second refund.
   */
  refundNotYet?(err: GatewayFailure): boolean;
  createCustomer(ctx: CallContext, customer: NormalizedCustomer): Promise<CustomerOutcome>;
  /**
   * Read-only: the gateway's own installment plans for an amount and a card (a gateway with a quote endpoint); absent:
   * quotes are computed from the account's settings. Resolves [] when the gateway offers no plan for that card.
   */
  quoteInstallments?(ctx: CallContext, request: InstallmentQuoteRequest): Promise<GatewayQuotedPlan[]>;
}

/**
 * What an `error.response` mapping reads out of a gateway's error body (input `{status, body}`): where that gateway
 * puts its text and codes. The adapter's classification decides what the facts mean (auth, decline, ...).
 */
export interface GatewayErrorFacts {
  /** The gateway's own text, as RouteGate shows it. */
  message?: string;
  /** The gateway's error code (the one that says most, where a body lists several). */
  code?: string;
  /** Every code the body lists, in its order. */
  codes?: string[];
  /** The gateway's error category, where it has one apart from the code (e.g. card_error, bad_request). */
  type?: string;
  /** The issuer's reason where the gateway gives one apart from `code`; the gateway's word, not RouteGate's. */
  declineCode?: string;
  /** The request fields the gateway blames. */
  params?: string[];
  /** The gateway's own field-level validation messages (its field names), shown to the client with the message. */
  fields?: Array<{ field: string; message: string }>;
  /** A charge the error body still carries: the gateway created it before refusing (a decline answered as an error). */
  charge?: unknown;
}

/** Internal failure kinds; src/charges/outcomes.ts maps them to public errors in one place. */
export type FailureKind =
  | 'unreachable' // no connection, or the socket died before any response
  | 'timeout' // no answer within the timeout
  | 'http_5xx'
  | 'rate_limited' // gateway 429
  | 'auth' // gateway 401/403: stored credentials rejected
  | 'decline' // the card/payment was refused
  | 'invalid_request' // gateway 4xx that is not auth/decline/not found
  | 'not_found' // gateway 404 for the resource
  | 'bad_response' // malformed or unexpected body
  | 'unsupported'; // the gateway cannot do this

export class GatewayFailure extends Error {
  constructor(
    public readonly kind: FailureKind,
    public readonly gateway: GatewayId,
    message: string,
    public readonly info: {
      status?: number; // gateway HTTP status
      body?: unknown; // gateway body as received (may be undefined)
      error?: GatewayErrorFacts; // what mappings/<gateway>/error.response read from the body
      declineCode?: DeclineCode;
      normalized?: NormalizedChargeResult; // for declines that still created a charge at the gateway
      /** true when the request may have reached the gateway (ambiguous outcome). */
      ambiguous?: boolean;
      /**
       * The gateway accepted the call (its own answer is here); only a read made after it failed. The operation
       * succeeded: the charge's amounts are read again later.
       */
      accepted?: { raw: unknown; refund?: RefundResult };
    } = {},
  ) {
    super(message);
    this.name = 'GatewayFailure';
  }
}
