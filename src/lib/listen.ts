/** A port that cannot be taken: the one line an operator needs, never a stack trace (exit code 1). */
export class ListenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ListenError';
  }
}

/**
 * Runs `start` (something that listens) and turns the usual reasons it cannot into a ListenError that says
 * which address and what to change: EADDRINUSE (another RouteGate, sandbox or program holds the port) and
 * EACCES (a port below 1024 without privileges).
 */
export async function listenOrExplain<T>(start: () => Promise<T>, o: { what: string; port: number; host: string; hint: string }): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ListenError(`${o.what} cannot listen on ${o.host}:${o.port}: the address is already in use (${o.hint})`, { cause: err });
    if (code === 'EACCES') throw new ListenError(`${o.what} cannot listen on ${o.host}:${o.port}: permission denied (${o.hint})`, { cause: err });
    if (code === 'EADDRNOTAVAIL') throw new ListenError(`${o.what} cannot listen on ${o.host}:${o.port}: no such address on this machine`, { cause: err });
    throw err;
  }
}
