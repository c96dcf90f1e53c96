import { BoolAttribute, FloatAttribute, IntegerAttribute, LongAttribute, StringAttribute, StringCollection, type KeyValuePair } from '@esp/codecs';
import { z } from 'zod';
import { StageFailure, type Stage, type StageContext } from '../stage';
import { regexFlags, regexSource } from './regex-option';

export const dropOptions = z.strictObject({
  /** The item is dropped when any rule matches (operation_dropped, suggested action drop). */
  rules: z
    .array(
      z.strictObject({
        attribute: z.string(),
        pattern: regexSource(),
        flags: regexFlags,
        /** Said in the error instead of the default "attribute x matches /p/". */
        description: z.string().optional(),
      }),
    )
    .min(1),
});
export type DropOptions = z.output<typeof dropOptions>;

function textValues(a: KeyValuePair): string[] {
  if (a instanceof StringAttribute) return [a.value];
  if (a instanceof StringCollection) return [...a.values];
  if (a instanceof IntegerAttribute || a instanceof LongAttribute || a instanceof FloatAttribute || a instanceof BoolAttribute) return [String(a.value)];
  return [];
}

/** drop: items with an attribute matching a configured pattern MUST NOT be indexed (MS-FSDPD 2.2.9). */
export function createDropStage(name: string, o: DropOptions): Stage {
  const rules = o.rules.map((r) => ({ ...r, re: new RegExp(r.pattern, r.flags) }));
  return {
    name,
    type: 'drop',
    process(ctx: StageContext) {
      for (const r of rules) {
        const a = ctx.doc.get(r.attribute);
        if (!a) continue;
        const hit = textValues(a).find((v) => r.re.test(v));
        if (hit !== undefined) {
          throw new StageFailure('operation_dropped', r.description ?? `dropped: attribute "${r.attribute}" matches /${r.pattern}/${r.flags}`);
        }
      }
    },
  };
}
