import fs from 'node:fs';
import { statCpuMs, statFields } from './proc-cpu';

/**
 * CPU ms each process alive at one moment had used, by pid, with its command name (kernel threads included) and its
 * start (clock ticks after boot), which tells a pid reused in between from the same process.
 */
export type ProcessesCpu = Map<number, { name: string; ms: number; start: number }>;

/** What the machine's other processes used while a measured run ran: in all, and the largest by command name. */
export interface OtherCpu { ms: number; top: Array<{ name: string; ms: number }> }

/** The kernel's workers rename themselves after the queue they serve (`kworker/1:1-events`): one name for all. */
function commandName(comm: string): string {
  return comm.startsWith('kworker/') ? 'kworker' : comm;
}

/** Every process's CPU so far, from /proc (Linux; empty elsewhere). A process that exits in between is skipped. */
export function processesCpu(): ProcessesCpu {
  const all: ProcessesCpu = new Map();
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return all;
  }
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const start = Number(statFields(stat)[19]);
      all.set(Number(pid), { name: commandName(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))), ms: statCpuMs(stat), start });
    } catch {
      // it exited between the listing and the read
    }
  }
  return all;
}

/**
 * The CPU that processes other than `own` used between two readings, summed by command name, largest first. A
 * process started in between counts from its start; one that started and exited in between is not seen. On the
 * fifteenth round's host the paced runs' slowest requests came while another task held one of the two cores (the
 * kernel's DAMON thread, `kdamond.0`, for 4 to 17 ms every half second: docs/performance.md), so each paced run
 * reports what else ran during it.
 */
export function otherProcessesCpu(before: ProcessesCpu, after: ProcessesCpu, own: Iterable<number>, top = 3): OtherCpu {
  const skip = new Set(own);
  const byName = new Map<string, number>();
  for (const [pid, now] of after) {
    if (skip.has(pid)) continue;
    const earlier = before.get(pid);
    const used = earlier && earlier.start === now.start ? now.ms - earlier.ms : now.ms;
    if (used > 0) byName.set(now.name, (byName.get(now.name) ?? 0) + used);
  }
  const ranked = [...byName].map(([name, ms]) => ({ name, ms })).sort((x, y) => y.ms - x.ms);
  return { ms: ranked.reduce((sum, p) => sum + p.ms, 0), top: ranked.slice(0, top) };
}

/** `kdamond.0 30 ms, beam.smp 10 ms` */
export function describeOtherCpu(other: OtherCpu): string {
  return other.top.length ? other.top.map((p) => `${p.name} ${Math.round(p.ms)} ms`).join(', ') : 'none';
}
