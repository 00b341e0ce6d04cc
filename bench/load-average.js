// The machine is shared: every figure says how busy it was when it was measured.
import os from 'node:os'

/** `load 3.21 on 2 cores`: the one-minute load average, as `uptime` shows it. */
export function loadAverage() {
  return `load ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`
}
