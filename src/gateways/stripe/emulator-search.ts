import { invalid, type Json } from './emulator-wire';

// Stripe's search query language for PaymentIntents (docs.stripe.com/search): clauses `field:value` joined by
// spaces or AND (implicit AND), or by OR, never both; a leading `-` negates a clause; string values in single
// or double quotes (a backslash escapes a quote); numeric fields take `:`, `>`, `<`, `>=`, `<=` with a bare number. PaymentIntent query
// fields: amount, created, currency, customer, metadata['key'], status. Pure parsing and matching: the route
// is in ./emulator-resources.ts.

interface Clause { field: string; key?: string; op: ':' | '>' | '<' | '>=' | '<='; value: string | number; negated: boolean }
export interface SearchQuery { join: 'AND' | 'OR'; clauses: Clause[] }

const TOKEN_FIELDS = new Set(['currency', 'customer', 'status']);
const NUMERIC_FIELDS = new Set(['amount', 'created']);
// -field['key'] op 'value' | "value" | number; a backslash escapes the quote inside a quoted value.
const CLAUSE = /^\s*(-?)([a-z_]+)(?:\[\s*(['"])(.*?)\3\s*\])?\s*(>=|<=|:|>|<)\s*(?:(['"])((?:\\.|(?!\6)[^\\])*)\6|(-?\d+))/;
const unescape = (quoted: string) => quoted.replace(/\\(.)/g, '$1');

const queryError = (message: string) => invalid(message, { code: 'parameter_invalid_string', param: 'query' });

/** Parse a query; a query Stripe would refuse is a 400 naming `query`. */
export function parseSearchQuery(input: unknown): SearchQuery {
  if (typeof input !== 'string' || input.trim() === '') {
    throw invalid('Missing required param: query.', { code: 'parameter_missing', param: 'query' });
  }
  const clauses: Clause[] = [];
  const joins = new Set<'AND' | 'OR'>();
  let rest = input;
  while (rest.trim() !== '') {
    if (clauses.length > 0) {
      const join = /^\s+(AND|OR)\s+/i.exec(rest) ?? /^\s+/.exec(rest);
      if (!join) throw queryError(`Invalid query: expected a space, AND or OR before '${rest.trim()}'.`);
      joins.add((join[1]?.toUpperCase() ?? 'AND') as 'AND' | 'OR');
      rest = rest.slice(join[0].length);
    }
    const m = CLAUSE.exec(rest);
    if (!m) throw queryError(`Invalid query: could not parse '${rest.trim()}'. A clause is field:'value', e.g. metadata['order_id']:'6735'.`);
    const [whole, minus, field, , key, op, , quoted, number] = m;
    clauses.push(clause(field, key, op as Clause['op'], quoted === undefined ? Number(number) : unescape(quoted), quoted === undefined, minus === '-'));
    rest = rest.slice(whole.length);
  }
  if (joins.size > 1) throw queryError('Invalid query: AND and OR cannot be combined in one query.');
  return { join: joins.has('OR') ? 'OR' : 'AND', clauses };
}

function clause(field: string, key: string | undefined, op: Clause['op'], value: string | number, bare: boolean, negated: boolean): Clause {
  if (field === 'metadata') {
    if (key === undefined) throw queryError("Invalid query: metadata is searched by key, e.g. metadata['order_id']:'6735'.");
  } else if (key !== undefined || (!TOKEN_FIELDS.has(field) && !NUMERIC_FIELDS.has(field))) {
    throw queryError(`Invalid query: '${field}' is not a supported search field for payment_intents (amount, created, currency, customer, metadata, status).`);
  }
  if (NUMERIC_FIELDS.has(field) ? !bare : bare || op !== ':') {
    throw queryError(`Invalid query: '${field}' ${NUMERIC_FIELDS.has(field) ? 'takes a number' : "takes a quoted value and the ':' operator"}.`);
  }
  return { field, key, op, value, negated };
}

export function matchesSearch(pi: Json, query: SearchQuery): boolean {
  const hit = (c: Clause) => test(pi, c) !== c.negated;
  return query.join === 'AND' ? query.clauses.every(hit) : query.clauses.some(hit);
}

function test(pi: Json, c: Clause): boolean {
  if (c.field === 'metadata') return pi.metadata?.[c.key!] === c.value;
  const actual = pi[c.field];
  if (typeof c.value === 'string') return actual === c.value;
  switch (c.op) {
    case '>': return actual > c.value;
    case '<': return actual < c.value;
    case '>=': return actual >= c.value;
    case '<=': return actual <= c.value;
    default: return actual === c.value;
  }
}
