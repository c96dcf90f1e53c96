import { Action } from '@esp/codecs';
import { z } from 'zod';
import { ACTION_NAMES, STAGE_ERROR_KINDS, StageFailure, type Stage, type StageContext, type StageErrorKind } from '../stage';
import { regexFlags, regexSource } from './regex-option';

export const failOptions = z.strictObject({
  /** Fail items whose document id matches this pattern. */
  id_pattern: regexSource().optional(),
  flags: regexFlags,
  /** Fail items at random with this probability (0..1), from a seeded generator so runs repeat. */
  probability: z.number().min(0).max(1).default(0),
  seed: z.number().int().default(1),
  /** The error entity to fail with, or "throw" to crash the stage (becomes a processing_error). */
  error: z.enum([...(STAGE_ERROR_KINDS as [StageErrorKind, ...StageErrorKind[]]), 'throw']).default('processing_error'),
  suggested_action: z.enum(ACTION_NAMES as [keyof typeof Action, ...(keyof typeof Action)[]]).optional(),
  error_code: z.number().int().optional(),
  description: z.string().default('failed on purpose (fail stage)'),
  /** Add a warning to items whose document id matches this pattern. */
  warn_id_pattern: regexSource().optional(),
  /** Hold each item whose document id matches delay_id_pattern (all items without one) this long: a slow processor. */
  delay_ms: z.number().int().min(0).max(600_000).default(0),
  delay_id_pattern: regexSource().optional(),
});
export type FailOptions = z.output<typeof failOptions>;

/** mulberry32: a small seeded generator, so a "fail 10 %" run fails the same items every time. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** fail: a stage for tests and drills that fails (or warns about, or holds up) chosen items. */
export function createFailStage(name: string, o: FailOptions): Stage {
  const idRe = o.id_pattern === undefined ? undefined : new RegExp(o.id_pattern, o.flags);
  const warnRe = o.warn_id_pattern === undefined ? undefined : new RegExp(o.warn_id_pattern, o.flags);
  const delayRe = o.delay_id_pattern === undefined ? undefined : new RegExp(o.delay_id_pattern, o.flags);
  const random = seededRandom(o.seed);
  return {
    name,
    type: 'fail',
    async process(ctx: StageContext) {
      const id = ctx.doc.id;
      if (o.delay_ms > 0 && (delayRe?.test(id) ?? true)) await new Promise((r) => setTimeout(r, o.delay_ms));
      if (warnRe?.test(id)) ctx.warn(`warning on purpose for "${id}"`);
      const chosen = (idRe?.test(id) ?? false) || (o.probability > 0 && random() < o.probability);
      if (!chosen) return;
      if (o.error === 'throw') throw new Error(o.description);
      throw new StageFailure(o.error, o.description, {
        code: o.error_code,
        action: o.suggested_action === undefined ? undefined : Action[o.suggested_action],
      });
    },
  };
}
