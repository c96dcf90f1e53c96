/**
 * @esp/logging: the one logger factory of every app and lib.
 *
 *   import { createLogger } from '@esp/logging';
 *   const log = createLogger('content-distributor', { node: 'cd-1' });
 *   log.info({ session: 42, collection: 'news' }, 'session created');
 *
 * JSON lines on stdout by default; human-readable when stdout is a TTY or LOG_FORMAT=pretty
 * (LOG_FORMAT=json forces JSON). LOG_LEVEL sets the level (default info; "silent" in tests unless set).
 */
export { createLogger, type Logger, type LoggerOptions } from './logger';
export { announceReady, writeReadyLine, READY_FD_ENV } from './ready';
