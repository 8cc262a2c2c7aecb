import type { FastifyPluginAsync } from 'fastify';
import type { GatewayId } from '../gateways/types';
import type { EmulatorControl } from './control';
import type { WireSettings } from '../gateways/types';

export interface EmulatorOptions {
  gateway: GatewayId;
  control: EmulatorControl;
  /** The deployment's wire settings (each gateway's declared wire settings): both sides of the wire follow them. */
  wire: WireSettings;
  /** The sandbox credential's webhookSecret: what the emulator's webhooks are signed with unless the control API sets another. */
  webhookSecret?: string;
}

/**
 * A gateway emulator: a fastify plugin registered under `/<gateway>` that follows shared/gateways/<id>.md.
 * It keeps state in memory and calls `control.onReset` with a function that clears it.
 * Bodies arrive parsed (JSON, or form-decoded with qs); `request.rawBody` holds the raw text.
 */
export type EmulatorPlugin = FastifyPluginAsync<EmulatorOptions>;
