import type { FastifyPluginAsync } from 'fastify';
import type { GatewayId } from '../gateways/registry-ids';
import type { EmulatorControl } from './control';

export interface EmulatorOptions {
  gateway: GatewayId;
  control: EmulatorControl;
}

/**
 * A gateway emulator: a fastify plugin registered under `/<gateway>` that follows shared/gateways/<id>.md.
 * It keeps state in memory and calls `control.onReset` with a function that clears it.
 * Bodies arrive parsed (JSON, or form-decoded with qs for Stripe); `request.rawBody` holds the raw text.
 */
export type EmulatorPlugin = FastifyPluginAsync<EmulatorOptions>;
