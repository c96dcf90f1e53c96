/**
 * Bit flags of the crawl queue entry (MS-FSCMT 2.2.2.2.1 to 2.2.2.2.3), with helpers to name the bits of a mask.
 *
 *   fscmtFlagNames(0x2001, FSCMT_URI_FLAGS)                 // ['URIF_STARTURI', 'URIF_UNSCREENED']
 *   fscmtFlagsFromNames(['QF_PREPEND', 'QF_URGENT'], FSCMT_QUEUE_FLAGS) // 5
 */

/** URI flags: a bitmask. 0x00020000 is reserved. */
export const FSCMT_URI_FLAGS = {
  URIF_NOFLAGS: 0x00000000,
  URIF_STARTURI: 0x00000001,
  URIF_FORCE: 0x00000002,
  URIF_FORCESITE: 0x00000004,
  URIF_FORCE_REFEED: 0x00000008,
  URIF_JAVASCRIPT: 0x00000010,
  URIF_REDIRECT_301: 0x00000020,
  URIF_REDIRECT_302: 0x00000040,
  URIF_DEL_IF_EXCL: 0x00000080,
  URIF_PROMOTE: 0x00000100,
  URIF_META_REFRESH: 0x00000200,
  URIF_STARTURI_FEED: 0x00000400,
  URIF_RESCHEDULED: 0x00001000,
  URIF_UNSCREENED: 0x00002000,
  URIF_META_NOINDEX: 0x00004000,
  URIF_META_NOFOLLOW: 0x00008000,
  URIF_SITEURI: 0x00010000,
  URIF_NO_CRAWL: 0x00040000,
  URIF_REDIRECT_300: 0x00080000,
  URIF_MULTIPLECHOICE: 0x00100000,
  URIF_FEED_HIGHPRI: 0x00200000,
  URIF_RSS: 0x00400000,
  URIF_CLEANSITE: 0x00800000,
  URIF_NOFOLLOW: 0x01000000,
  URIF_LOADLEVEL: 0x02000000,
  URIF_IGNORE_RULES: 0x04000000,
  URIF_RSS_CHILD: 0x08000000,
  URIF_SITEMAP: 0x10000000,
  URIF_IGNORE_NETLOC: 0x20000000,
  URIF_UPDATE_CARGO: 0x40000000,
} as const;

/** Frame flags: 0 or exactly one of these values (not a mask). */
export const FSCMT_FRAME_FLAGS = {
  URI_STATE_FRAME_PARENT: 1,
  URI_STATE_FRAME_CHILD: 2,
} as const;

/** Queue flags: a bitmask. 0x08 and 0x10 are reserved. */
export const FSCMT_QUEUE_FLAGS = {
  QF_PREPEND: 0x01,
  QF_FORCE: 0x02,
  QF_URGENT: 0x04,
} as const;

/** The redirect kinds a redirect trail entry may carry (a subset of the URI flags). */
export const FSCMT_REDIRECT_KINDS = {
  URIF_REDIRECT_300: FSCMT_URI_FLAGS.URIF_REDIRECT_300,
  URIF_REDIRECT_301: FSCMT_URI_FLAGS.URIF_REDIRECT_301,
  URIF_REDIRECT_302: FSCMT_URI_FLAGS.URIF_REDIRECT_302,
  URIF_META_REFRESH: FSCMT_URI_FLAGS.URIF_META_REFRESH,
} as const;

/** The names of the bits set in `mask`, in table order; bits the table does not name come out as hex. */
export function fscmtFlagNames(mask: number, table: Readonly<Record<string, number>>): string[] {
  const names: string[] = [];
  let rest = mask >>> 0;
  for (const [name, bit] of Object.entries(table)) {
    if (bit !== 0 && (mask & bit) === bit) {
      names.push(name);
      rest &= ~bit >>> 0;
    }
  }
  for (let bit = 1; rest !== 0 && bit !== 0; bit = (bit << 1) >>> 0) {
    if (rest & bit) {
      names.push(`0x${bit.toString(16).padStart(8, '0')}`);
      rest = (rest & ~bit) >>> 0;
    }
  }
  return names;
}

/** The mask with the named bits set; an unknown name is a RangeError. */
export function fscmtFlagsFromNames(names: readonly string[], table: Readonly<Record<string, number>>): number {
  let mask = 0;
  for (const name of names) {
    if (!Object.hasOwn(table, name)) throw new RangeError(`unknown flag ${name}`);
    mask |= table[name];
  }
  return mask;
}
