/** Injectable time for TTLs and windows: tests move `clock.now` instead of sleeping. */
export const clock = {
  now: (): number => Date.now(),
};
