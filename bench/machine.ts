import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { opencodeBinary } from '../test/support/opencode-sandbox.js';

export function machineInfo() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  let opencode = 'unknown';
  try {
    opencode = execFileSync(opencodeBinary(), ['--version'], { encoding: 'utf8', env: { ...process.env, OPENCODE_DISABLE_AUTOUPDATE: '1' } }).trim();
  } catch (error) {
    opencode = `unavailable (${(error as Error).message.split('\n')[0]})`;
  }
  return {
    cores: os.cpus().length,
    cpuModel: model,
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    opencode,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    tmpdir: os.tmpdir(),
  };
}

export const loadavg = () => os.loadavg().map((x) => Number(x.toFixed(2))) as [number, number, number];

/** Jiffies of all CPUs from /proc/stat: total, idle (+iowait) and steal (time the hypervisor gave to others). */
export function cpuTimes() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { total, idle: (fields[3] ?? 0) + (fields[4] ?? 0), steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}

export function cpuUsageSince(start: ReturnType<typeof cpuTimes>) {
  const end = cpuTimes();
  if (!start || !end || end.total === start.total) return null;
  const total = end.total - start.total;
  return { busyPct: Number(((100 * (total - (end.idle - start.idle))) / total).toFixed(1)), stealPct: Number(((100 * (end.steal - start.steal)) / total).toFixed(1)) };
}
