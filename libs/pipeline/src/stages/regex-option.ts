import { z } from 'zod';

/** A regular expression in the configuration: refused at load time, with the reason, if it does not compile. */
export function regexSource() {
  return z.string().superRefine((src, ctx) => {
    try {
      new RegExp(src);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(err as Error).message}` });
    }
  });
}

export const regexFlags = z.string().regex(/^[imsu]*$/, 'flags may only be i, m, s, u').default('');
