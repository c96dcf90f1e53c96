import type { InputError, Skip } from './input-error';

/** How many input errors and skipped files the report lists one by one; beyond that they are only counted. */
export const MAX_LISTED = 10_000;

/** What the inputs did not give as documents: input errors and skipped files, counted, and listed up to a bound. */
export class InputTally {
  errorCount = 0;
  readonly errors: string[] = [];
  skippedCount = 0;
  readonly byReason: Record<string, number> = {};
  readonly skipped: { id: string; reason: string; same_as?: string }[] = [];

  constructor(private readonly maxListed = MAX_LISTED) {}

  readonly error = (e: InputError | Error): void => {
    this.errorCount++;
    if (this.errors.length < this.maxListed) this.errors.push(e.message);
  };

  readonly skip = (s: Skip): void => {
    this.skippedCount++;
    this.byReason[s.reason] = (this.byReason[s.reason] ?? 0) + 1;
    if (this.skipped.length < this.maxListed) this.skipped.push({ id: s.id, reason: s.reason, ...(s.sameAs !== undefined ? { same_as: s.sameAs } : {}) });
  };

  /** "12 (image/png 9, font/woff2 2, hidden 1)": the count and the most frequent reasons, for the progress line. */
  skippedSummary(reasons = 3): string {
    const top = Object.entries(this.byReason).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const shown = top.slice(0, reasons).map(([r, n]) => `${r} ${n}`);
    if (top.length > reasons) shown.push('...');
    return shown.length ? `${this.skippedCount} (${shown.join(', ')})` : '0';
  }

  /** The report's fields. */
  report(): { input_error_count: number; input_errors: string[]; skipped: { count: number; by_reason: Record<string, number>; files: InputTally['skipped'] } } {
    return {
      input_error_count: this.errorCount,
      input_errors: this.errors,
      skipped: { count: this.skippedCount, by_reason: { ...this.byReason }, files: this.skipped },
    };
  }
}

/** This process's peak resident set size in MB (resourceUsage reports KiB). */
export function peakRssMb(): number {
  return Number((process.resourceUsage().maxRSS / 1024).toFixed(1));
}
