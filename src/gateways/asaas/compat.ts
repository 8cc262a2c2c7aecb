import QRCode from 'qrcode';
import type { CompatCharge, CompatCustomer, CompatSurface, NativeAnswer, NativeRequest } from '../../compat/types';
import { rgError } from '../../errors';
import { PASSTHROUGH } from './passthrough';

// Asaas v3 served by RouteGate (compatibility mode; docs/compatibility.md): the payments and customers paths of
// asaas.md sections 2 to 4, JSON bodies with values in reais, the key in the `access_token` header. Everything else
// under /v3 is passed through to Asaas with the account's own API key.

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const digits = (v: unknown) => str(v)?.replace(/\D+/g, '') || undefined;
const BRASILIA_MS = 3 * 3600_000;

/** An ISO instant as Asaas writes date-times: Brasilia local time, "YYYY-MM-DD HH:mm:ss". */
function brasilia(iso: unknown, dateOnly = false): string | null {
  const ms = typeof iso === 'string' ? Date.parse(iso) : NaN;
  if (Number.isNaN(ms)) return null;
  const text = new Date(ms - BRASILIA_MS).toISOString().replace('T', ' ').slice(0, 19);
  return dateOnly ? text.slice(0, 10) : text;
}

/**
 * GET /v3/payments/{id}/pixQrCode (asaas.md section 2): encodedImage is a PNG in base64. A gateway that answered only
 * an image URL (Stripe, Pagar.me, PagBank) gets the PNG drawn here from the same EMV payload, which is what the payer
 * scans: an Asaas client renders `data:image/png;base64,<encodedImage>` and must not get a URL there.
 */
async function pixQrCode(charge: CompatCharge): Promise<NativeAnswer> {
  const v = charge.view;
  // A boleto answers too when it is hybrid (its gateway offered a pix on it, boleto.pixCopyPaste), as Asaas's own do.
  const hybrid = v.paymentMethod === 'boleto' ? obj(v.boleto) : undefined;
  if (v.paymentMethod !== 'pix' && !str(hybrid?.pixCopyPaste)) {
    throw rgError('OPERATION_UNSUPPORTED', { gateway: 'asaas', operation: 'a pix QR code', method: String(v.paymentMethod) });
  }
  const payload = str(hybrid ? hybrid.pixCopyPaste : v.pixCopyPaste) ?? null;
  const image = str(hybrid ? hybrid.pixQrCode : v.pixQrCode);
  const png = image?.match(/^data:image\/png;base64,(.+)$/)?.[1];
  const encodedImage = png ?? (payload ? (await QRCode.toDataURL(payload, { errorCorrectionLevel: 'M' })).split(',')[1] : null);
  const expiresAt = brasilia(obj(v.pix).expiresAt);
  const native = obj(charge.native);
  return { body: { encodedImage, payload, expirationDate: expiresAt ?? (str(native.dueDate) ? `${native.dueDate} 23:59:59` : null), description: native.description ?? null } };
}

/**
 * The 44-digit barcode a 47-digit typeable line encodes (FEBRABAN layout: the line is the barcode's fields regrouped
 * with check digits): bank and currency, the general check digit, due factor and value, then the free field.
 */
export function barcodeOfLine(line: string | undefined): string | undefined {
  if (!line || !/^\d{47}$/.test(line)) return undefined;
  return line.slice(0, 4) + line[32] + line.slice(33, 47) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
}

/** GET /v3/payments/{id}/identificationField: the typeable line (47 digits), the bank's number and the barcode (44). */
function identificationField(charge: CompatCharge): NativeAnswer {
  const v = charge.view;
  if (v.paymentMethod !== 'boleto') throw rgError('OPERATION_UNSUPPORTED', { gateway: 'asaas', operation: 'a boleto identification field', method: String(v.paymentMethod) });
  const line = str(v.boletoBarcode);
  // A gateway that gave only the line (Pagar.me) still has its barcode: the line carries every digit of it.
  const barCode = str(v.boletoBarcodeNumber) ?? barcodeOfLine(line) ?? null;
  return { body: { identificationField: line ?? null, nossoNumero: obj(charge.native).nossoNumero ?? null, barCode } };
}

/** retrieve, capture and cancel answer the payment; the QR code, boleto line and status reads, and DELETE, their own bodies. */
async function charge(c: CompatCharge, request: NativeRequest): Promise<NativeAnswer> {
  const path = request.path.replace(/\/+$/, '');
  if (path.endsWith('/pixQrCode')) return pixQrCode(c);
  if (path.endsWith('/identificationField')) return identificationField(c);
  const payment = obj(c.native);
  if (path.endsWith('/status')) return { body: { status: payment.status } };
  // DELETE /v3/payments/{id} answers {deleted, id} only (asaas.md section 3).
  if (request.method === 'DELETE') return { body: { deleted: true, id: payment.id } };
  return { body: c.native };
}

/** asaas.md section 4: the customer object, Asaas' own when it holds the customer. */
function customer(c: CompatCustomer): NativeAnswer {
  if (c.processedHere && c.raw && typeof c.raw === 'object') return { body: c.raw };
  const v = c.view;
  const a = obj(v.address);
  const phone = str(v.phone)?.replace(/^\+?55(?=\d{10,11}$)/, '');
  const document = String(v.document ?? '');
  return {
    body: {
      object: 'customer',
      id: c.processedHere ? v.externalId : v.id,
      dateCreated: brasilia(v.createdAt, true),
      name: v.name ?? null,
      email: v.email ?? null,
      company: null,
      phone: phone && phone.length !== 11 ? phone : null,
      mobilePhone: phone && phone.length === 11 ? phone : null,
      address: a.street ?? null,
      addressNumber: a.number ?? null,
      complement: a.complement ?? null,
      province: a.district ?? null,
      postalCode: a.postalCode ?? null,
      cpfCnpj: document,
      personType: document.length === 14 ? 'JURIDICA' : 'FISICA',
      deleted: false,
      additionalEmails: null,
      externalReference: obj(v.metadata).externalReference ?? null,
      notificationDisabled: false,
      observations: null,
      municipalInscription: null,
      stateInscription: null,
      canDelete: true,
      cannotBeDeletedReason: null,
      canEdit: true,
      cannotEditReason: null,
      city: null,
      cityName: a.city ?? null,
      state: a.state ?? null,
      country: 'Brasil',
    },
  };
}

/**
 * The state (UF) a CEP belongs to: the Correios ranges, fixed by the postal service. Asaas itself fills a customer's
 * city and state from the CEP ("it is not necessary to send the city ... Asaas will fill in this information
 * automatically based on the zip code"), so its clients send no state; the other gateways require one on a boleto.
 */
const UF_BY_CEP: Array<[number, number, string]> = [
  [1000, 19999, 'SP'], [20000, 28999, 'RJ'], [29000, 29999, 'ES'], [30000, 39999, 'MG'], [40000, 48999, 'BA'], [49000, 49999, 'SE'],
  [50000, 56999, 'PE'], [57000, 57999, 'AL'], [58000, 58999, 'PB'], [59000, 59999, 'RN'], [60000, 63999, 'CE'], [64000, 64999, 'PI'],
  [65000, 65999, 'MA'], [66000, 68899, 'PA'], [68900, 68999, 'AP'], [69000, 69299, 'AM'], [69300, 69399, 'RR'], [69400, 69899, 'AM'],
  [69900, 69999, 'AC'], [70000, 72799, 'DF'], [72800, 72999, 'GO'], [73000, 73699, 'DF'], [73700, 76799, 'GO'], [76800, 76999, 'RO'],
  [77000, 77999, 'TO'], [78000, 78899, 'MT'], [79000, 79999, 'MS'], [80000, 87999, 'PR'], [88000, 89999, 'SC'], [90000, 99999, 'RS'],
];

export function ufOfCep(cep: string | undefined): string | undefined {
  if (!cep || cep.length !== 8) return undefined;
  const prefix = Number(cep.slice(0, 5));
  return UF_BY_CEP.find(([from, to]) => prefix >= from && prefix <= to)?.[2];
}

/** POST /v3/customers body -> RouteGate's customer input (asaas.md section 4; the inverse of customer.request). */
function customerInput(request: NativeRequest): Record<string, unknown> {
  const b = request.body;
  const postalCode = digits(b.postalCode);
  const address = {
    street: str(b.address), number: str(b.addressNumber) ?? (typeof b.addressNumber === 'number' ? String(b.addressNumber) : undefined),
    complement: str(b.complement), district: str(b.province), postalCode,
    // `city` is a name when a client sends it (Asaas answers its own city id there, which names nothing elsewhere).
    city: /^\d*$/.test(String(b.city ?? '')) ? undefined : str(b.city),
    state: ufOfCep(postalCode),
  };
  const hasAddress = Object.values(address).some((x) => x !== undefined);
  const reference = str(b.externalReference);
  return {
    name: str(b.name), email: str(b.email), document: digits(b.cpfCnpj), phone: digits(b.mobilePhone) ?? digits(b.phone),
    address: hasAddress ? { ...address, country: 'BR' } : undefined,
    metadata: reference ? { externalReference: reference } : undefined,
  };
}

/** Asaas pages by offset: {object: list, hasMore, totalCount, limit, offset, data}. */
function page(data: unknown[], hasMore: boolean, request: NativeRequest) {
  const { limit, offset } = paging(request);
  // RouteGate does not count the whole set: totalCount is exact on the last page and one more than this page's end
  // before it, so a client paging while offset < totalCount (or while hasMore) reads every item.
  return { body: { object: 'list', hasMore, totalCount: offset + data.length + (hasMore ? 1 : 0), limit, offset, data } };
}

function paging(request: NativeRequest): { limit: number; offset: number } {
  const n = (v: unknown) => (/^\d+$/.test(String(v ?? '')) ? Number(v) : undefined);
  return { limit: Math.min(Math.max(n(request.query.limit) ?? 10, 1), 100), offset: n(request.query.offset) ?? 0 };
}

const id = ['param:id'] as const;

export const asaasCompat: CompatSurface = {
  routes: [
    { method: 'POST', path: '/v3/payments', operation: 'create' },
    { method: 'GET', path: '/v3/payments', operation: 'list' },
    { method: 'GET', path: '/v3/payments/:id', operation: 'retrieve', id },
    { method: 'GET', path: '/v3/payments/:id/status', operation: 'retrieve', id },
    { method: 'GET', path: '/v3/payments/:id/pixQrCode', operation: 'retrieve', id },
    { method: 'GET', path: '/v3/payments/:id/identificationField', operation: 'retrieve', id },
    { method: 'POST', path: '/v3/payments/:id/captureAuthorizedPayment', operation: 'capture', id },
    { method: 'DELETE', path: '/v3/payments/:id', operation: 'cancel', id },
    // Omitting value refunds the rest (asaas.md section 3); value is reais.
    { method: 'POST', path: '/v3/payments/:id/refund', operation: 'refund', id, amount: ['body:value'] },
    { method: 'POST', path: '/v3/customers', operation: 'customerCreate' },
    { method: 'GET', path: '/v3/customers', operation: 'customerList' },
    { method: 'GET', path: '/v3/customers/:id', operation: 'customerRetrieve', id },
  ],
  prefixes: ['/v3'],
  createStatus: 200,
  passthrough: PASSTHROUGH,
  passthroughHeaders: (credentials) => ({ access_token: credentials.apiKey ?? '' }),
  recognizes: (headers) => headers.access_token !== undefined,
  answers: {
    charge,
    // Asaas answers a refund with the payment itself: REFUNDED when nothing is left, else with refunds[] (section 3).
    refund: (c) => ({ body: c.native }),
    list: (items, hasMore, request) => page(items.map((i) => i.native), hasMore, request),
    customerInput,
    customer,
    customerList: (items, hasMore, request) => page(items.map((c) => customer(c).body), hasMore, request),
  },
  listQuery: (request) => paging(request),
};
