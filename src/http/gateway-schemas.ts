import { GATEWAYS } from '../gateways/registry';
import { GATEWAY_INPUT_IDS } from '../gateways/registry-ids';

export type JsonSchema = Record<string, unknown> & { $id: string };

/**
 * The schemas that name gateways, derived from the registry at start-up so schemas/ never lists them by hand:
 * `gateway-id` (every accepted spelling of a registered gateway), `credentials-<id>` (each gateway's credential
 * fields), and the account settings a gateway declares for itself, added to `settings` and `settings-patch`.
 */
export function withGatewaySchemas(schemas: JsonSchema[]): JsonSchema[] {
  const derived: JsonSchema[] = [
    { $id: 'gateway-id', title: 'GatewayId', type: 'string', enum: GATEWAY_INPUT_IDS, description: 'a gateway id, or another accepted spelling of it (SPEC.md labels, aliases)' },
    ...GATEWAYS.map((g): JsonSchema => ({
      $id: `credentials-${g.id}`,
      title: `Credentials (${g.id})`,
      type: 'object',
      additionalProperties: false,
      required: Object.entries(g.credentials).filter(([, f]) => f.required).map(([name]) => name),
      properties: Object.fromEntries(Object.entries(g.credentials).map(([name, f]) => [name, {
        type: 'string', minLength: 8, maxLength: 512, description: f.description, ...(f.pattern ? { pattern: f.pattern } : {}),
      }])),
    })),
  ];
  const accountSettings = Object.fromEntries(GATEWAYS.flatMap((g) => Object.entries(g.accountSettings ?? {})
    .map(([name, spec]) => [name, { type: spec.type, description: `${g.name}: ${spec.description}` }])));
  const extended = schemas.map(inlineGatewayIds).map((s) => {
    if (s.$id !== 'settings' && s.$id !== 'settings-patch') return s;
    const out = { ...s, properties: { ...(s.properties as object), ...accountSettings } } as JsonSchema;
    if (s.$id === 'settings') out.required = [...(s.required as string[]), ...Object.keys(accountSettings)];
    return out;
  });
  return [...extended, ...derived];
}

/**
 * `{"$ref": "gateway-id#"}` in schemas/ becomes the enum itself: the same validation, and the published OpenAPI
 * document shows the values inline (query parameters cannot point to a component).
 */
function inlineGatewayIds<T>(node: T): T {
  if (Array.isArray(node)) return node.map(inlineGatewayIds) as T;
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  if (o.$ref === 'gateway-id#') {
    const { $ref: _ref, ...rest } = o;
    return { type: 'string', enum: GATEWAY_INPUT_IDS, ...rest } as T;
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, inlineGatewayIds(v)])) as T;
}
