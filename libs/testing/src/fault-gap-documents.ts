import { SeededRandom } from './real-corpus-random';

/** A small document for the fault-gap rig (a FeedDocument of @esp/content-client has this shape). */
export interface GapDocument {
  id: string;
  attributes: Record<string, string>;
}

const WORDS = ['river', 'stone', 'market', 'signal', 'harbour', 'lantern', 'orchard', 'ledger', 'meadow', 'quarry', 'velvet', 'compass', 'thunder', 'parcel', 'summit', 'willow'];

/** The marker word only document i of this prefix holds: search for it to find that document. */
export const gapMarker = (i: number, prefix = 'gap') => `${prefix.replace(/[^A-Za-z0-9]/g, '')}mark${i}q`;

/**
 * Document i (id `<prefix>-<i>`) of the rig's feed, the same on every run: plain text or HTML, with a size mix like a web crawl's small
 * pages: half 300–800 bytes, 30 % 1–3 KB, 15 % 3–8 KB, 5 % 8–32 KB (about 2.5 KB on average).
 */
export function gapDocument(i: number, prefix = 'gap'): GapDocument {
  const rng = new SeededRandom(0x9e3779b1 ^ i);
  const r = rng.next();
  const size = r < 0.5 ? rng.int(300, 800) : r < 0.8 ? rng.int(1024, 3072) : r < 0.95 ? rng.int(3072, 8192) : rng.int(8192, 32768);
  const marker = gapMarker(i, prefix);
  const words: string[] = [marker];
  let n = marker.length;
  while (n < size) {
    const w = rng.pick(WORDS);
    words.push(w);
    n += w.length + 1;
  }
  const text = words.join(' ');
  const title = `Gap document ${i}`;
  if (rng.chance(0.3)) {
    return { id: `${prefix}-${i}`, attributes: { title, body: `<html><head><title>${title}</title></head><body><p>${text}</p></body></html>`, content_type: 'text/html' } };
  }
  return { id: `${prefix}-${i}`, attributes: { title, body: text, content_type: 'text/plain' } };
}
