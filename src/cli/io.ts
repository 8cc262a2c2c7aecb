/** Where a command writes: lines to stdout and stderr (tests pass their own). */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}
