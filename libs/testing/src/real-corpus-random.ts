/**
 * The seeded randomness of the test corpus: one small PRNG (mulberry32), so that a seed gives the same corpus byte
 * for byte on every machine, log-normal document sizes, and the pseudo-words that make each document findable.
 *
 *   const rng = new SeededRandom(42);
 *   rng.logNormalSize(CORPUS_SIZE_MODEL);   // median 7 KiB, p90 130 KiB
 *   uniqueWord(rng, 17, 0);                 // 'zorvexa' + '17' + 'q0': a token no other document holds
 */

/** Sizes of the ordinary documents: log-normal with median 7 KiB and 90th percentile 130 KiB. */
export const CORPUS_SIZE_MODEL = Object.freeze({
  medianBytes: 7 * 1024,
  p90Bytes: 130 * 1024,
  /** z of the 90th percentile of the standard normal distribution. */
  z90: 1.2816,
  minBytes: 400,
  maxBytes: 4 * 1024 * 1024,
});

export type SizeModel = typeof CORPUS_SIZE_MODEL;

/** mu and sigma of the log-normal distribution with this median and 90th percentile. */
export function logNormalParams(model: SizeModel): { mu: number; sigma: number } {
  return { mu: Math.log(model.medianBytes), sigma: Math.log(model.p90Bytes / model.medianBytes) / model.z90 };
}

export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1) (mulberry32). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A standard normal value (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A size in bytes drawn from the log-normal model, clamped to its bounds. */
  logNormalSize(model: SizeModel = CORPUS_SIZE_MODEL): number {
    const { mu, sigma } = logNormalParams(model);
    const n = Math.round(Math.exp(mu + sigma * this.normal()));
    return Math.min(model.maxBytes, Math.max(model.minBytes, n));
  }

  /** A child generator whose sequence depends only on this one's seed and `label` (stable when other parts change). */
  fork(label: string): SeededRandom {
    let h = this.state ^ 0x9e3779b9;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
    return new SeededRandom(h);
  }
}

const ONSETS = ['b', 'br', 'd', 'dr', 'f', 'g', 'gl', 'k', 'kr', 'l', 'm', 'n', 'p', 'pl', 'qu', 'r', 's', 'st', 't', 'tr', 'v', 'vr', 'z', 'zh'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ae', 'ou', 'y'];
const CODAS = ['', '', 'n', 'r', 'x', 'l', 'k', 'th', 's'];

/**
 * A pseudo-word no dictionary holds and no other document of the corpus holds: letters, then the document's number,
 * then 'q' and the word's number. Letters and digits only: one token for the FTS5 unicode61 tokenizer.
 */
export function uniqueWord(rng: SeededRandom, doc: number, k: number): string {
  let w = '';
  const syllables = rng.int(2, 3);
  for (let i = 0; i < syllables; i++) w += rng.pick(ONSETS) + rng.pick(VOWELS) + rng.pick(CODAS);
  return `${w}${doc}q${k}`;
}
