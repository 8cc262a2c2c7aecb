import type { FastifyBaseLogger } from 'fastify';
import type { ChargeService } from '../charges/orchestrator';
import type { ChargeRecord } from '../store/charges';
import { RouteGateError } from '../errors';
import { ADAPTERS } from '../gateways/registry';
import type { GatewayId } from '../gateways/registry-ids';

// The reads a notification makes RouteGate do at the gateway, through the charge service (under the charge's lock,
// storing what the gateway says as any refresh does): a charge's gateway id and state come from RouteGate's own
// calls, never from what a notification claims.

/**
 * The charge as its gateway shows it now, read with the account's credentials; undefined when it cannot be read
 * (never created, its create still unconfirmed, no credentials). A charge busy with another operation, or a gateway
 * that does not answer, fails the notification: the gateway sends it again later.
 */
export async function readAtGateway(charges: ChargeService, accountId: string, chargeId: string): Promise<ChargeRecord | undefined> {
  try {
    const read = await charges.refresh(accountId, chargeId);
    if (read.error) throw read.error;
    return read.charge;
  } catch (err) {
    if (err instanceof RouteGateError && (err.key === 'CHARGE_UNCONFIRMED' || err.key === 'CHARGE_NEVER_CREATED' || err.key === 'MISSING_CREDENTIALS')) return undefined;
    throw err;
  }
}

/**
 * A verified payment event for a charge whose create is not settled (no gateway id yet): settle it first with
 * RouteGate's own read, which is where the gateway id comes from. If that does not settle it, the event is stored
 * and forwarded but not applied (the reconciler settles the charge). Busy: the notification waits for the gateway's
 * next try (409).
 */
export async function settleCreateFirst(
  charges: ChargeService, log: FastifyBaseLogger, accountId: string, chargeId: string, notified?: { gateway: GatewayId; externalId?: string },
): Promise<void> {
  const charge = await charges.get(accountId, chargeId).catch(() => undefined);
  if (!charge || charge.externalId) return;
  try {
    // A gateway with no lookup by reference: the payment the notification names, read at the gateway and
    // taken only if the gateway's answer carries this charge's reference.
    if (notified?.externalId && ADAPTERS[notified.gateway].referenceOf && !ADAPTERS[notified.gateway].lookupCharge) {
      await charges.settleNotified(chargeId, { gateway: notified.gateway, externalId: notified.externalId });
      return;
    }
    await charges.refresh(accountId, chargeId);
  } catch (err) {
    if (err instanceof RouteGateError && err.code === 'CHARGE_BUSY') throw err;
    log.info({ chargeId, code: (err as RouteGateError).code }, 'a webhook could not settle its charge first; the reconciler will');
  }
}
