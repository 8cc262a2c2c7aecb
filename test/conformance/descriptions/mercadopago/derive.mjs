// Derives mercadopago-sdk-types.json (OpenAPI components.schemas) from the official `mercadopago` package's type
// declarations (node_modules/mercadopago/dist/**/*.d.ts) with the TypeScript checker: each named type becomes a JSON
// schema of its properties (string, number, boolean, arrays, nested types, string literal unions as enums). Every SDK
// field is optional, so only types are checked, plus: request bodies take no property the SDK does not declare.
// `any` is unconstrained. JSON has no undefined: a response field may be null where the SDK declares it.
// Run from the repository root: node test/conformance/descriptions/mercadopago/derive.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

const DIST = 'node_modules/mercadopago/dist/clients';
const ROOTS = [
  // [schema name, file, type name, request?]
  ['PaymentCreateRequest', 'payment/create/types.d.ts', 'PaymentCreateRequest', true],
  ['PaymentResponse', 'payment/commonTypes.d.ts', 'PaymentResponse', false],
  ['PaymentSearchResult', 'payment/search/types.d.ts', 'PaymentSearchResult', false],
  ['CardTokenCreateBody', 'cardToken/create/types.d.ts', 'CardTokenCreateBody', true],
  ['CardTokenResponse', 'cardToken/commonTypes.d.ts', 'CardTokenResponse', false],
  ['RefundResponse', 'paymentRefund/commonTypes.d.ts', 'RefundResponse', false],
  ['CreateRefundBody', 'paymentRefund/create/types.d.ts', 'CreateRefundBody', true],
  ['CustomerRequestBody', 'customer/commonTypes.d.ts', 'CustomerRequestBody', true],
  ['CustomerResponse', 'customer/commonTypes.d.ts', 'CustomerResponse', false],
];
const files = ROOTS.map(([, f]) => `${DIST}/${f}`);
const program = ts.createProgram(files, { strict: true });
const checker = program.getTypeChecker();
const schemas = {};

function schemaOf(type, request, depth) {
  if (depth > 8) return {};
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
  if (type.isUnion()) {
    const parts = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
    if (parts.length > 0 && parts.every((t) => t.isStringLiteral())) return { type: 'string', enum: parts.map((t) => t.value) };
    if (parts.every((t) => t.flags & ts.TypeFlags.BooleanLiteral)) return { type: 'boolean' };
    const nullable = type.types.some((t) => t.flags & ts.TypeFlags.Null);
    const one = parts.length === 1 ? schemaOf(parts[0], request, depth) : { anyOf: parts.map((t) => schemaOf(t, request, depth)) };
    return nullable ? { anyOf: [one, { type: 'null' }] } : one;
  }
  if (type.flags & ts.TypeFlags.StringLike) return { type: 'string' };
  if (type.flags & ts.TypeFlags.NumberLike) return { type: 'number' };
  if (type.flags & ts.TypeFlags.BooleanLike) return { type: 'boolean' };
  if (checker.isArrayType(type)) return { type: 'array', items: schemaOf(checker.getTypeArguments(type)[0], request, depth + 1) };
  if (type.flags & ts.TypeFlags.Object) {
    const props = checker.getPropertiesOfType(type);
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    if (props.length === 0) return { type: 'object' };
    const out = { type: 'object', properties: {} };
    for (const p of props) {
      if (p.name === 'api_response') continue; // the SDK's own addition (status, headers), not the wire's
      const declared = checker.getTypeOfSymbol(p);
      const s = schemaOf(declared, request, depth + 1);
      // Responses: the API writes null for a field it has no value for (the SDK's `?` admits it at run time).
      out.properties[p.name] = request || Object.keys(s).length === 0 ? s : { anyOf: [s, { type: 'null' }] };
    }
    if (request && !index) out.additionalProperties = false;
    return out;
  }
  return {};
}

for (const [name, file, typeName, request] of ROOTS) {
  const source = program.getSourceFile(`${DIST}/${file}`);
  if (!source) throw new Error(`no ${file}`);
  const symbol = checker.getSymbolAtLocation(source).exports.get(typeName);
  if (!symbol) throw new Error(`${file} exports no ${typeName}`);
  schemas[name] = schemaOf(checker.getDeclaredTypeOfSymbol(symbol), request, 0);
}
const version = JSON.parse(readFileSync('node_modules/mercadopago/package.json', 'utf8')).version;
const doc = { openapi: '3.0.3', info: { title: `Mercado Pago payments types derived from mercadopago ${version}`, version }, paths: {}, components: { schemas } };
writeFileSync(new URL('./mercadopago-sdk-types.json', import.meta.url), `${JSON.stringify(doc, null, 2)}\n`);
console.log(`${Object.keys(schemas).length} schemas from mercadopago ${version}`);
