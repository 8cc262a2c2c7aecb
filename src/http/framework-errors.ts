import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RouteGateError, envelope, rgError } from '../errors';
import { toRouteGateError } from './error-handler';

// Requests that never reach a route, and so never the error handler: the SPEC.md envelope all the same.

/**
 * Fastify's `frameworkErrors`: the router refused the URL before routing it (an invalid percent-encoding,
 * a path segment over `maxParamLength`). The message never echoes the URL, whose query may hold anything.
 */
export function frameworkErrors(production: boolean) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const rgErr = toRouteGateError(err);
    // No route, so no hooks either: the request id header every answer carries is set here.
    reply.code(rgErr.statusCode).header('x-request-id', request.id).type('application/json; charset=utf-8').send(envelope(rgErr, production));
  };
}

/** What Node's HTTP parser refused, as a public error. */
export function clientError(code: string | undefined): RouteGateError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      // Node counts the request line into the same limit, so an overlong URL lands here too.
      return rgError('HEADERS_TOO_LARGE', { max: http.maxHeaderSize });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rgError('REQUEST_TIMEOUT');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return rgError('CHUNK_EXTENSIONS_TOO_LARGE');
    default:
      return rgError('MALFORMED_HTTP_REQUEST');
  }
}

/**
 * Fastify's `clientErrorHandler` (the server's `clientError` event): Node refused the bytes before any request
 * object existed, so the answer is written to the socket by hand, then the connection is closed as Node does.
 */
export function clientErrorHandler(production: boolean) {
  return function onClientError(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const rgErr = clientError(err.code);
    // Never `err` itself: its rawPacket holds the refused bytes, x-api-key and all.
    this.log.debug({ code: err.code, statusCode: rgErr.statusCode }, 'client error');
    if (socket.writable) {
      const body = JSON.stringify(envelope(rgErr, production));
      socket.write(`HTTP/1.1 ${rgErr.statusCode} ${http.STATUS_CODES[rgErr.statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n`
        + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy();
  };
}
