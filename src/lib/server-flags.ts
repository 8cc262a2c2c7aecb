/**
 * Node flags the service runs with (`npm start`, the Dockerfile, the bench's RouteGate; test/server-flags.test.ts
 * keeps those in step with this list).
 *
 * --max-old-space-size=512: RouteGate's live heap is about 45 MB and stays there (100,000 charges in a row, see
 * docs/performance.md); what grows is V8's old generation between collections. With a heap limit of 2 GB or more
 * (Node's default grows with the machine's memory: 4 GB on the 24 GB bench machine) V8 lets it reach up to four
 * times the live heap before collecting, and resident memory follows it (up to 280 MB over 100,000 charges). Under
 * a smaller limit V8's growing factor is 1.3 to 2 (1.63 at 1 GB, 1.44 at 512 MB), and resident memory stays under
 * 200 MB for about the same time spent in major collections (more of them, each smaller). 512 MB rather than 1 GB
 * since the WAL checkpoint thread (src/store/checkpointer.ts) added 10 MB: about 10 MB less after the bench's load,
 * in two pairs of runs. 512 MB is eleven times the live heap: a limit the service never meets, not a budget.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-old-space-size=512'];
