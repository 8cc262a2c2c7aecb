import fs from 'node:fs';

/**
 * The fields of a `/proc/.../stat` line after the command name: index 0 is the state, 7 minflt, 11 utime, 12 stime,
 * 19 starttime. The name ends at the line's last `)`: it may itself hold one.
 */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Clock ticks (USER_HZ, 100 a second) as ms. */
const ticksMs = (ticks: string): number => (Number(ticks) * 1000) / 100;

/** User + system CPU ms in a `/proc/.../stat` line: utime and stime. */
export function statCpuMs(stat: string): number {
  const fields = statFields(stat);
  return ticksMs(fields[11]) + ticksMs(fields[12]);
}

/** CPU ms a process has used so far, all its threads (exited ones included), from /proc (Linux); 0 elsewhere. */
export function processCpuMs(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    return statCpuMs(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}

/** CPU ms of a process's main thread (the thread whose id is the process's), from /proc (Linux); 0 elsewhere. */
export function mainThreadCpuMs(pid: number): number {
  try {
    return statCpuMs(fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}

/**
 * What a process's threads have spent and met so far, from /proc (Linux; zeros elsewhere): user and system CPU ms
 * apart, minor page faults, and context switches given up (voluntary) and taken (involuntary), summed over the
 * threads alive now. A run whose CPU per request stands out can then be told apart: more kernel time, more faults,
 * more preemption, or the same counts at a slower pace.
 */
export interface ProcessCounters { userMs: number; systemMs: number; minorFaults: number; voluntary: number; involuntary: number }

export function processCounters(pid: number): ProcessCounters {
  const counters: ProcessCounters = { userMs: 0, systemMs: 0, minorFaults: 0, voluntary: 0, involuntary: 0 };
  try {
    const fields = statFields(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    counters.minorFaults = Number(fields[7]);
    counters.userMs = ticksMs(fields[11]);
    counters.systemMs = ticksMs(fields[12]);
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const status = fs.readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      counters.voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      counters.involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
  } catch {
    // the process has exited, or this is not Linux: zeros
  }
  return counters;
}
