/**
 * Node flags the service runs with (`npm start`, the Dockerfile, the bench's RouteGate; test/server-flags.test.ts
 * keeps those in step with this list).
 *
 * --max-old-space-size=1024: RouteGate's live heap is about 45 MB and stays there (100,000 charges in a row, see
 * docs/performance.md); what grows is V8's old generation between collections. With a heap limit of 2 GB or more
 * (Node's default grows with the machine's memory: 4 GB on the 24 GB bench machine) V8 lets it reach up to four
 * times the live heap before collecting, and resident memory follows it (up to 280 MB over 100,000 charges). Under
 * a smaller limit V8's growing factor is 1.3 to 2 (1.6 at 1 GB), and resident memory stays under 200 MB for the
 * same time spent in major collections (more of them, each smaller). 1 GB is twenty times the live heap: a limit
 * the service never meets, not a budget.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-old-space-size=1024'];
