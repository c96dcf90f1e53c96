/** What one part of a benchmark reports: human lines, and name=value figures. */
export interface BenchResult {
  lines: string[];
  metrics: Record<string, number>;
}
