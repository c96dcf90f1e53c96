/**
 * Lets timers and I/O run before going on: stages working on a large document call it between slices of work, so
 * that the process keeps sending its heartbeats and answering calls (a processor silent for a few seconds is
 * declared dead by its distributor).
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
