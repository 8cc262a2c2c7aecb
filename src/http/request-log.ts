import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PinoLogger } from './request-logger';

/**
 * One `info` line per request, written when it is answered: `request completed` with `req` (method, path,
 * address), `res` (status), `responseTime`, and on charge routes the charge and gateway that answered. Fastify
 * writes two (`incoming request`, then `request completed`), which doubles the writes of a busy service for no
 * fact the second line lacks; `incoming request` stays at `debug`, to see requests that never finish.
 */
export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // Below the level in force (a service run at `warn`) the line is not even built.
    if (!error && !(request.log as PinoLogger).isLevelEnabled('info')) return;
    const line: Record<string, unknown> = { req: request, res: reply, responseTime: reply.elapsedTime };
    const chargeId = reply.getHeader('x-rg-charge-id');
    if (chargeId !== undefined) {
      line.chargeId = chargeId;
      line.gateway = reply.getHeader('x-rg-gateway');
    }
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
