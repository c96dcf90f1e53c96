import { pino, type Logger, type LoggerOptions as PinoOptions } from 'pino';

export type { Logger };

export interface LoggerOptions {
  /** Overrides LOG_LEVEL. */
  level?: string;
  /** Overrides LOG_FORMAT / TTY detection. */
  pretty?: boolean;
  /** Where JSON lines go (tests pass a stream to read them back). */
  destination?: NodeJS.WritableStream;
}

function wantsPretty(env: NodeJS.ProcessEnv): boolean {
  if (env['LOG_FORMAT'] === 'json') return false;
  if (env['LOG_FORMAT'] === 'pretty') return true;
  return Boolean(process.stdout.isTTY);
}

function defaultLevel(env: NodeJS.ProcessEnv): string {
  if (env['LOG_LEVEL']) return env['LOG_LEVEL'];
  // test runners set one of these; keep test output readable unless asked
  return env['VITEST'] ? 'silent' : 'info';
}

/**
 * A pino logger for one component. `bindings` are the ids that matter for this component (node, session,
 * collection...) and appear on every line.
 */
export function createLogger(component: string, bindings: Record<string, unknown> = {}, opts: LoggerOptions = {}): Logger {
  const env = process.env;
  const base: PinoOptions = {
    level: opts.level ?? defaultLevel(env),
    base: { component, pid: process.pid, ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (opts.destination) return pino(base, opts.destination);
  if (opts.pretty ?? wantsPretty(env)) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } });
  }
  return pino(base);
}
