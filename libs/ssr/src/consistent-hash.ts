import { hashKey } from './artifact';

/**
 * The data-centric router (1.3 "Data Centric (DC) policy"): a consistent hash allocates hash codes to the instances
 * of the current view. Instances are placed by name, not by incarnation, so a recovered instance gets its old range
 * back and its sessions migrate home to it (2.17); a departure moves only the departed instance's range.
 */
export class ConsistentHashRouter {
  private readonly points: number[] = [];
  private readonly owners: string[] = [];

  constructor(
    readonly names: readonly string[],
    vnodes = 100,
  ) {
    const all: [number, string][] = [];
    for (const n of names) for (let i = 0; i < vnodes; i++) all.push([hashKey(`${n}#${i}`), n]);
    all.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
    for (const [p, n] of all) {
      this.points.push(p);
      this.owners.push(n);
    }
  }

  /** The home instance name for a hash, or undefined for an empty view. */
  home(hash: number): string | undefined {
    const n = this.points.length;
    if (n === 0) return undefined;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.points[mid] as number) < hash) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === n ? 0 : lo];
  }
}
