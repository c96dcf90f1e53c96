/** The NATS servers of a command line: --nats (comma separated), else NATS_URL, else the local default. */
export function natsServers(raw: string | undefined, env: NodeJS.ProcessEnv): string[] {
  return list(raw ?? env['NATS_URL'] ?? 'nats://127.0.0.1:4222');
}

/** A comma-separated list, trimmed, without empty items. */
export function list(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * An integer option in [min, max]; `dflt` when absent. Returns the number, or the error message to show (so that
 * every command says the same thing the same way).
 */
export function integerOption<D extends number | undefined>(name: string, raw: string | undefined, dflt: D, min: number, max: number): number | D | string {
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) return `--${name} must be an integer from ${min} to ${max}, got "${raw}"`;
  return n;
}
