import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What parsing a command line gives: options to run with, the help text, or the one-line error to show. */
export type CliResult<T> = ({ kind: 'run' } & T) | { kind: 'help'; text: string } | { kind: 'error'; message: string };

/** node:util parseArgs, with a bad option or value as `{ error }` instead of an exception. */
export function tryParseArgs<const T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> | { error: string } {
  try {
    return parseArgs(config);
  } catch (err) {
    return { error: (err as Error).message };
  }
}
