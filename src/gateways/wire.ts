import type { WireSettings } from './types';
import { GATEWAYS } from './registry';

// Where SPEC.md and a real gateway API disagree on the wire, the wire follows the real API and SPEC.md's
// variant is one setting away (DESIGN.md). Each gateway declares its settings in its descriptor; they are read
// from the environment once, by src/config.ts for the service and by the emulators, so both sides of the wire
// follow the same setting.

export class WireSettingError extends Error {}

/** Every declared wire setting from `env`, defaults filled in; a bad value throws naming the variable. */
export function parseWireSettings(env: Record<string, string | undefined>): WireSettings {
  const out: Record<string, string> = {};
  for (const spec of GATEWAYS.flatMap((g) => g.wireSettings ?? [])) {
    const value = env[spec.env]?.trim() || spec.default;
    const ok = spec.accepts instanceof RegExp ? spec.accepts.test(value) : spec.accepts.includes(value);
    if (!ok) {
      const wanted = spec.accepts instanceof RegExp ? `look like ${spec.default}` : `be ${spec.accepts.join(' or ')}`;
      throw new WireSettingError(`${spec.env} must ${wanted} (${spec.description}); got "${value}"`);
    }
    out[spec.env] = value;
  }
  return out;
}
