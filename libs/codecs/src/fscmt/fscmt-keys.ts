/**
 * The message dict's keys (MS-FSCMT 2.2.1.1): two-letter byte strings on the wire, known by their PKT_* names.
 *
 *   dict.getText(FSCMT_KEYS.PKT_CMD) // the command number
 */
export const FSCMT_KEYS = {
  PKT_CMD: 'cm',
  PKT_URI: 'ur',
  PKT_VCLOCK: 'vc',
  PKT_SITE_ADDRINFO: 'si',
  PKT_DSPECNAME: 'dn',
  PKT_SITE: 'st',
  PKT_DSPEC: 'ds',
  PKT_EPOCH: 'ep',
  PKT_CSUM: 'cs',
  PKT_ID: 'id',
  PKT_OWNURI: 'ou',
  PKT_WHY: 'wy',
  PKT_NODE_ID: 'mi',
  PKT_DATA: 'pd',
  PKT_PPDUP_ID: 'pi',
  PKT_DBNAME: 'db',
  PKT_XMLRPCPRT: 'xp',
} as const;

export type FscmtKeyName = keyof typeof FSCMT_KEYS;
export type FscmtKey = (typeof FSCMT_KEYS)[FscmtKeyName];

const NAMES = new Map<string, FscmtKeyName>(
  (Object.entries(FSCMT_KEYS) as Array<[FscmtKeyName, FscmtKey]>).map(([name, key]) => [key, name]),
);

/** 'cm' -> 'PKT_CMD'. */
export function fscmtKeyName(key: string): FscmtKeyName | undefined {
  return NAMES.get(key);
}
