/** Exponential backoff: initial, doubling, capped; with full jitter when asked (spreads retries of many clients). */
export function backoffDelay(attempt: number, opts: { initialMs?: number; maxMs?: number; jitter?: boolean } = {}): number {
  const initial = opts.initialMs ?? 100;
  const max = opts.maxMs ?? 30_000;
  const d = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return opts.jitter ? Math.floor(d / 2 + Math.random() * (d / 2)) : d;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
