/**
 * The emulators keep every order they are sent. Over a bench that grew to a gigabyte, slowed every target alike and
 * put the emulator's own collections into the runs measured (docs/performance.md, ninth round), so each bench
 * empties them before a measured run. Started with EMULATOR_NODE_FLAGS, the reset also collects what it wiped
 * (src/sandbox/control.ts), before the run rather than in it.
 */
export const EMULATOR_NODE_FLAGS: readonly string[] = ['--expose-gc'];

/** POST /__control/reset on the emulators at `emulatorsUrl` (their common base, without a gateway's path). */
export async function resetEmulator(emulatorsUrl: string): Promise<void> {
  const res = await fetch(`${emulatorsUrl}/__control/reset`, { method: 'POST' });
  if (!res.ok) throw new Error(`resetting the emulators failed: ${res.status}`);
}
