/**
 * Test fixture: the frames of /work/shared/specs/FSCMT-wire-test-vectors.md, as printed there (xxd layout).
 */
export const FSCMT_VECTORS = {
  CMD_UM_INIT: `
0000000: 00 00 00 55 28 02 00 00 00 7B 73 02 00 00 00 78
0000010: 70 28 02 00 00 00 73 10 00 00 00 68 6F 73 74 2E
0000020: 63 6F 6E 74 6F 73 6F 2E 63 6F 6D 69 10 27 00 00
0000030: 73 02 00 00 00 6D 69 73 0B 00 00 00 34 39 2D 34
0000040: 37 2D 36 37 2D 38 36 73 02 00 00 00 63 6D 69 18
0000050: 00 00 00 30 69 00 00 00 00`,
  CMD_UM_DNS_REQUEST: `
0000000: 00 00 00 46 28 02 00 00 00 7B 73 02 00 00 00 64
0000010: 6E 73 07 00 00 00 65 78 61 6D 70 6C 65 73 02 00
0000020: 00 00 63 6D 69 0C 00 00 00 73 02 00 00 00 73 74
0000030: 73 0F 00 00 00 77 77 77 2E 63 6F 6E 74 6F 73 6F
0000040: 2E 63 6F 6D 30 69 01 00 00 00`,
  PPDUP_ADD: `
0000000: 00 00 00 81 28 02 00 00 00 7B 73 02 00 00 00 63
0000010: 6D 69 34 00 00 00 73 02 00 00 00 64 6E 73 07 00
0000020: 00 00 65 78 61 6D 70 6C 65 73 02 00 00 00 69 64
0000030: 73 0B 00 00 00 37 30 2D 38 36 2D 31 32 2D 32 30
0000040: 73 02 00 00 00 63 73 73 10 00 00 00 A9 EB CB 8F
0000050: AC BD C7 43 77 5A 1D 3B 52 2D A8 B6 73 02 00 00
0000060: 00 75 72 73 17 00 00 00 68 74 74 70 3A 2F 2F 77
0000070: 77 77 2E 63 6F 6E 74 6F 73 6F 2E 63 6F 6D 2F 30
0000080: 69 00 00 00 00`,
} as const;

/** The bytes of an xxd-style dump: offsets before the colon are skipped. */
export function vectorBytes(dump: string): Uint8Array {
  const hex = dump
    .split('\n')
    .map((line) => line.slice(line.indexOf(':') + 1))
    .join(' ')
    .trim()
    .split(/\s+/);
  return Uint8Array.from(hex, (h) => parseInt(h, 16));
}
