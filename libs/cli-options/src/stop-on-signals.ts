/** The two log calls stopOnSignals makes; a pino Logger (@esp/logging) is one. */
export interface StopLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface StopOnSignalsOptions {
  /** The line logged when the first signal comes; 'stopping' unless told. */
  message?: string;
  /** More fields for that line, read when the signal comes (e.g. the stats at that moment). */
  fields?: () => Record<string, unknown>;
}

/**
 * How a service stops: on the first SIGINT or SIGTERM, log `{ signal }` and the message, run `stop` once, then exit 0;
 * if stop throws, log the error ('error while stopping') and exit 1. Signals that come while stopping are ignored.
 *
 *   stopOnSignals(log, async () => { await server.stop(); await mw.close(); });
 */
export function stopOnSignals(log: StopLog, stop: (signal: NodeJS.Signals) => Promise<void>, opts: StopOnSignalsOptions = {}): void {
  let stopping = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal: sig, ...opts.fields?.() }, opts.message ?? 'stopping');
      void (async () => stop(sig))().then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err: err instanceof Error ? err.message : String(err) }, 'error while stopping');
          process.exit(1);
        },
      );
    });
  }
}
