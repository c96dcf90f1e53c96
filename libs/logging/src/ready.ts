/**
 * Readiness as a signal of its own, apart from the log: whatever LOG_LEVEL and LOG_FORMAT say, a process started by
 * a supervisor (the launcher, the node controller) that names a file descriptor in ESP_READY_FD gets one JSON line
 * there when the process is ready: `{"ready":true,"pid":...,...fields}` (the fields of its `ready` log line: URLs,
 * ports). Without ESP_READY_FD only the log line is written.
 *
 *   announceReady(log, { xmlrpc_url: url, port });   // log.info(fields, 'ready') + the line on ESP_READY_FD
 *
 * A supervisor may write further lines to its own ESP_READY_FD (the node controller: one per process of its own
 * that became ready, with `process` naming it).
 */
import { writeSync } from 'node:fs';
import type { Logger } from 'pino';

export const READY_FD_ENV = 'ESP_READY_FD';

/** The descriptor, read once: the variable is removed from the environment so that children do not inherit the name. */
const readyFd: number | undefined = (() => {
  const v = process.env[READY_FD_ENV];
  delete process.env[READY_FD_ENV];
  const fd = v === undefined ? NaN : Number(v);
  return Number.isInteger(fd) && fd > 2 ? fd : undefined;
})();

/** Writes one readiness line to ESP_READY_FD (when there is one); false when it could not be written. */
export function writeReadyLine(fields: Record<string, unknown>): boolean {
  if (readyFd === undefined) return false;
  try {
    writeSync(readyFd, JSON.stringify({ ready: true, pid: process.pid, ...fields }) + '\n');
    return true;
  } catch {
    return false; // the supervisor is gone or closed its end
  }
}

/** The `ready` log line (info), and the readiness line on ESP_READY_FD, which no log level or format turns off. */
export function announceReady(log: Logger, fields: Record<string, unknown>, message = 'ready'): void {
  log.info(fields, message);
  writeReadyLine(fields);
}
