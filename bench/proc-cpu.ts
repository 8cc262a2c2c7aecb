import fs from 'node:fs';

/** User + system CPU ms in a `/proc/.../stat` line: utime and stime, in USER_HZ (100 a second). */
function statCpuMs(stat: string): number {
  const fields = stat.split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
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
