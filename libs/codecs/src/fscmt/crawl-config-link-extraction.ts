/**
 * The link_extraction section's attrib names and the integer keys they become (MS-FSCMT 2.2.2.3.3): in the crawl
 * configuration dict this one section is keyed by tag-kind bits rather than by name.
 */
export const FSCMT_LINK_EXTRACTION_KEYS = {
  a: 0x1,
  action: 0x2,
  area: 0x4,
  comment: 0x10,
  frame: 0x20,
  go: 0x40,
  img: 0x80,
  layer: 0x100,
  link: 0x200,
  meta: 0x400,
  script: 0x800,
  script_java: 0x1000,
  style: 0x2000,
  object: 0x4000,
  meta_refresh: 0x8000,
  embed: 0x100000,
  card: 0x400000,
} as const;

export const FSCMT_LINK_EXTRACTION_SECTION = 'link_extraction';

/** The integer key of a link_extraction attrib, or undefined for a name the table does not have. */
export function fscmtLinkExtractionKey(name: string): number | undefined {
  return Object.hasOwn(FSCMT_LINK_EXTRACTION_KEYS, name)
    ? FSCMT_LINK_EXTRACTION_KEYS[name as keyof typeof FSCMT_LINK_EXTRACTION_KEYS]
    : undefined;
}
