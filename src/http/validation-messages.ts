import type { ErrorObject } from 'ajv';
import type { FieldError } from '../errors';

/**
 * Ajv errors -> one `{field, message}` per problem, where `${field} ${message}` is a sentence a merchant can act
 * on: `amount must be at least 100 (cents)`, `creditCard needs token, or paymentMethodId, or number, holderName,
 * expMonth, expYear and cvv`, `customerId, or customer.name and customer.document, is required when paymentMethod is
 * boleto`. Written over Ajv's structured errors (keyword, params, parentSchema with `verbose: true`) rather than
 * with ajv-errors, which would need an `errorMessage` beside every constraint in schemas/ (those files are also
 * the published OpenAPI document) and would repeat each limit in prose. Messages never echo the value sent: it
 * may be a card number.
 */

type Schema = Record<string, unknown>;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string', integer: 'a whole number', number: 'a number', boolean: 'true or false', object: 'an object', array: 'an array', null: 'null',
};

const FORMATS: Record<string, string> = {
  email: 'an e-mail address', date: 'a date as YYYY-MM-DD', 'date-time': 'a date and time (RFC 3339)', uri: 'a URL', uuid: 'a UUID',
  'br-tax-id': 'a valid CPF or CNPJ (its check digits do not match)',
};

// The patterns schemas/ uses, in words; anything else falls back to showing the pattern.
const PATTERNS: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/^\^\(\\d\{11\}\|\\d\{14\}\)\$$/, () => 'a CPF (11 digits) or a CNPJ (14 digits), digits only'],
  [/^\^\\\+\?\\d\{(\d+),(\d+)\}\$$/, (m) => `${m[1]} to ${m[2]} digits with the area code, optionally after +`],
  [/^\^\\d\{(\d+),(\d+)\}\$$/, (m) => `${m[1]} to ${m[2]} digits`],
  [/^\^\\d\{(\d+)\}\$$/, (m) => `${m[1]} digits`],
  [/^\^\[A-Za-z\]\{3\}\$$/, () => 'a three-letter code such as BRL'],
  [/^\^https\?:\/\/$/, () => 'an http:// or https:// URL'],
  [/^\^\\d\{4\}-\\d\{2\}-\\d\{2\}\$$/, () => 'a date as YYYY-MM-DD'],
  [/^\^\(\[1-9\]\|\[1-9\]\[0-9\]\|100\)\$$/, () => 'a whole number from 1 to 100'],
];
// `^sk_`, `^(sk|rk)_`: a required prefix.
const PREFIX = /^\^(?:([\w-]+)|\(([\w|-]+)\)([\w-]*))$/;

function describePattern(pattern: string): string {
  for (const [re, words] of PATTERNS) {
    const m = pattern.match(re);
    if (m) return `must be ${words(m)}`;
  }
  const prefix = pattern.match(PREFIX);
  if (prefix) return `must start with ${prefix[1] ?? list(prefix[2].split('|').map((p) => p + prefix[3]))}`;
  return `must match the pattern ${pattern}`;
}

function list(items: string[], word = 'or'): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${word} ${items[items.length - 1]}`;
}

/** What one anyOf/oneOf branch asks for, when it only asks for fields, by their paths: `customer.name and customer.document`. */
function describeBranch(branch: Schema): string | undefined {
  const keys = Object.keys(branch).filter((k) => k !== 'required' && k !== 'properties');
  if (keys.length > 0 || !Array.isArray(branch.required)) return undefined;
  const nested = (branch.properties ?? {}) as Record<string, Schema>;
  return list((branch.required as string[]).map((name) => {
    const inner = nested[name]?.required;
    return Array.isArray(inner) && inner.length ? (inner as string[]).map((child) => `${name}.${child}`) : [name];
  }).flat(), 'and');
}

/** `paymentMethod is credit_card or debit_card`, from an `if` made of const/enum properties. */
function describeCondition(ifSchema: Schema | undefined): string | undefined {
  const props = (ifSchema?.properties ?? {}) as Record<string, Schema>;
  const parts = Object.entries(props).map(([name, s]) => {
    if ('const' in s) return `${name} is ${String(s.const)}`;
    if (Array.isArray(s.enum)) return `${name} is ${list(s.enum.map(String))}`;
    return undefined;
  });
  return parts.length && parts.every(Boolean) ? parts.join(' and ') : undefined;
}

const unitOf = (s: Schema | undefined) => (typeof s?.description === 'string' && /\bcents\b/.test(s.description) ? ' (cents)' : '');

function ruleFor(e: ErrorObject): string | undefined {
  const p = e.params as Record<string, any>;
  const parent = e.parentSchema as Schema | undefined;
  switch (e.keyword) {
    case 'type': return `must be ${list(String(p.type).split(',').map((t) => TYPE_NAMES[t] ?? t))}`;
    case 'minimum': return `must be at least ${p.limit}${unitOf(parent)}`;
    case 'maximum': return `must be at most ${p.limit}${unitOf(parent)}`;
    case 'exclusiveMinimum': return `must be greater than ${p.limit}${unitOf(parent)}`;
    case 'exclusiveMaximum': return `must be less than ${p.limit}${unitOf(parent)}`;
    case 'minLength': return `must be at least ${p.limit} character${p.limit === 1 ? '' : 's'} long`;
    case 'maxLength': return `must be at most ${p.limit} characters long`;
    case 'minItems': return `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems': return `must have at most ${p.limit} items`;
    case 'uniqueItems': return 'must not repeat an item';
    case 'minProperties': return `must name at least ${p.limit} field${p.limit === 1 ? '' : 's'}`;
    case 'pattern': return describePattern(String(p.pattern));
    case 'format': return `must be ${FORMATS[p.format] ?? `in ${p.format} format`}`;
    case 'enum': return `must be one of: ${(p.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`;
    case 'const': return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'multipleOf': return `must be a multiple of ${p.multipleOf}`;
    default: return e.message ? e.message : 'is invalid';
  }
}

/** Ajv errors -> [{field, message}], dotted field paths, one entry per problem. */
export function fieldErrors(errors: ErrorObject[], prefix = ''): FieldError[] {
  // An `if` error says which `then` failed; the errors under that `then` get the condition as a suffix.
  const conditions = new Map<string, string>();
  for (const e of errors) {
    if (e.keyword !== 'if') continue;
    const cond = describeCondition((e.parentSchema as Schema | undefined)?.if as Schema | undefined);
    if (cond) conditions.set(e.schemaPath.replace(/\/if$/, '/then'), cond);
  }
  // Alternatives described as a whole replace the errors of each branch.
  const composite = errors.filter((e) => (e.keyword === 'anyOf' || e.keyword === 'oneOf')
    && Array.isArray(e.schema) && (e.schema as Schema[]).every((b) => describeBranch(b) !== undefined));
  const inComposite = (e: ErrorObject) => composite.some((c) => c !== e && e.schemaPath.startsWith(`${c.schemaPath}/`));

  const out: FieldError[] = [];
  for (const e of errors) {
    if (e.keyword === 'if' || inComposite(e)) continue;
    const base = [prefix, ...e.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))].filter(Boolean).join('.');
    const join = (child: string) => (base ? `${base}.${child}` : child);
    const condition = [...conditions].find(([path]) => e.schemaPath.startsWith(`${path}/`))?.[1];
    const when = condition ? ` when ${condition}` : '';
    let field: string;
    let message: string;
    if (e.keyword === 'required') {
      field = join((e.params as { missingProperty: string }).missingProperty);
      message = `is required${when}`;
    } else if (e.keyword === 'additionalProperties') {
      field = join((e.params as { additionalProperty: string }).additionalProperty);
      message = 'is not a known field';
    } else if (composite.includes(e)) {
      const alternatives = (e.schema as Schema[]).map((b) => describeBranch(b)!);
      const exactly = e.keyword === 'oneOf' && (e.params as { passingSchemas?: unknown }).passingSchemas;
      if (exactly) {
        field = base || '(body)';
        message = `needs exactly one of ${list(alternatives)}${when}`;
      } else if (base || alternatives[0].includes(' ')) {
        field = base || '(body)';
        message = `needs ${alternatives.join(', or ')}${when}`;
      } else {
        // At the top level there is no object to name: a first alternative that is one field is named, the others follow.
        field = alternatives[0];
        message = `is required (or ${alternatives.slice(1).join(', or ')})${when}`;
      }
    } else {
      field = base || '(body)';
      message = `${ruleFor(e)}${when}`;
    }
    out.push({ field, message });
  }
  // allErrors can report one problem twice (type and enum for a null); keep the first of each.
  const seen = new Set<string>();
  return out.filter((e) => (seen.has(e.field + e.message) ? false : (seen.add(e.field + e.message), true)));
}

/** The sentence for error.message: every problem, each naming its field. */
export function validationSummary(errors: FieldError[]): string {
  const sentences = errors.map((e) => (e.field === '(body)' ? `The request body ${e.message}` : `${e.field} ${e.message}`));
  return sentences.join('; ');
}
