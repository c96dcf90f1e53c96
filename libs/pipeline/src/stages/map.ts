import { z } from 'zod';
import type { Stage, StageContext } from '../stage';
import { withKey } from '../working-document';

export const mapOptions = z.strictObject({
  /** from → to: a copy of the attribute under another key (applied first). */
  copy: z.record(z.string(), z.string()).default({}),
  /** from → to: the attribute moves to another key (replacing what was there). */
  rename: z.record(z.string(), z.string()).default({}),
  /** Keys to remove. */
  remove: z.array(z.string()).default([]),
  /** key → value: attributes set to a constant (string, bool, or number: int, long or float as it fits). */
  set: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  /** Warn when a copy or rename source is missing (default false). */
  warn_missing: z.boolean().default(false),
});
export type MapOptions = z.output<typeof mapOptions>;

/** map: copy, rename, remove and set attributes, in that order. */
export function createMapStage(name: string, o: MapOptions): Stage {
  return {
    name,
    type: 'map',
    process(ctx: StageContext) {
      const { doc } = ctx;
      for (const [from, to] of Object.entries(o.copy)) {
        const a = doc.get(from);
        if (a) doc.set(withKey(a, to));
        else if (o.warn_missing) ctx.warn(`copy: no attribute "${from}"`);
      }
      for (const [from, to] of Object.entries(o.rename)) {
        const a = doc.get(from);
        if (!a) {
          if (o.warn_missing) ctx.warn(`rename: no attribute "${from}"`);
          continue;
        }
        if (from === to) continue;
        doc.remove(from);
        doc.set(withKey(a, to));
      }
      for (const key of o.remove) doc.remove(key);
      for (const [key, value] of Object.entries(o.set)) doc.setScalar(key, value);
    },
  };
}
