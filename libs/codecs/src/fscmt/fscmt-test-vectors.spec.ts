/**
 * The three frames of /work/shared/specs/FSCMT-wire-test-vectors.md (which replaces the damaged hex dumps of
 * MS-FSCMT section 4): they decode to the spec's tables and encode back byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { encodeFswcu } from '../fswcu/fswcu-encoder';
import { fswcuEquals } from '../fswcu/fswcu-equals';
import { FswcuDict, FswcuTuple, fswcuBytes } from '../fswcu/fswcu-value';
import { FSCMT_COMMANDS } from './fscmt-commands';
import { decodeFscmtFrame, encodeFscmtFrame } from './fscmt-frame';
import { FscmtFrameParser } from './fscmt-frame-parser';
import {
  buildFscmtDuplicateServerMessage,
  buildFscmtMultinodeSchedulerMessage,
  readFscmtDuplicateServerMessage,
  readFscmtMultinodeSchedulerMessage,
} from './fscmt-messages';
import { FSCMT_VECTORS, vectorBytes } from './testing/wire-vectors';

describe('FSCMT wire test vectors', () => {
  it('CMD_UM_INIT (4.1): length 85, decodes to the spec table, encodes back byte for byte', () => {
    const bytes = vectorBytes(FSCMT_VECTORS.CMD_UM_INIT);
    expect(bytes.length).toBe(4 + 85);
    const msg = decodeFscmtFrame(bytes);
    expect(msg.priority).toBe(0);
    expect(readFscmtMultinodeSchedulerMessage(msg.dict)).toEqual({
      command: 'CMD_UM_INIT',
      nodeId: '49-47-67-86',
      xmlrpc: { host: 'host.contoso.com', port: 10000 },
    });
    // The raw form, exactly as the vector's Python notation gives it, key order included.
    const expected = new FswcuDict([
      [fswcuBytes('xp'), new FswcuTuple([fswcuBytes('host.contoso.com'), 10000])],
      [fswcuBytes('mi'), fswcuBytes('49-47-67-86')],
      [fswcuBytes('cm'), 24],
    ]);
    expect(fswcuEquals(msg.dict, expected)).toBe(true);
    expect(encodeFscmtFrame(msg.dict, msg.priority)).toEqual(bytes);
    expect(encodeFscmtFrame(expected, 0)).toEqual(bytes);
  });

  it('CMD_UM_DNS_REQUEST (4.3): length 70, priority 1, decodes to the spec table, encodes back', () => {
    const bytes = vectorBytes(FSCMT_VECTORS.CMD_UM_DNS_REQUEST);
    expect(bytes.length).toBe(4 + 70);
    const msg = decodeFscmtFrame(bytes);
    expect(msg.priority).toBe(1);
    expect(readFscmtMultinodeSchedulerMessage(msg.dict)).toEqual({
      command: 'CMD_UM_DNS_REQUEST',
      dspecName: 'example',
      site: 'www.contoso.com',
    });
    expect(encodeFscmtFrame(msg.dict, msg.priority)).toEqual(bytes);
  });

  it('PPDUP_ADD (4.6): length 129, the 16-byte checksum stays raw bytes, encodes back', () => {
    const bytes = vectorBytes(FSCMT_VECTORS.PPDUP_ADD);
    expect(bytes.length).toBe(4 + 129);
    const msg = decodeFscmtFrame(bytes);
    expect(msg.priority).toBe(0);
    expect(readFscmtDuplicateServerMessage(msg.dict)).toEqual({
      command: 'PPDUP_ADD',
      dspecName: 'example',
      id: '70-86-12-20',
      uri: 'http://www.contoso.com/',
      csum: Uint8Array.from([0xa9, 0xeb, 0xcb, 0x8f, 0xac, 0xbd, 0xc7, 0x43, 0x77, 0x5a, 0x1d, 0x3b, 0x52, 0x2d, 0xa8, 0xb6]),
    });
    expect(encodeFscmtFrame(msg.dict, msg.priority)).toEqual(bytes);
  });

  it('the typed builders produce the same messages (key order aside) as the vectors', () => {
    const built = [
      buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_INIT', nodeId: '49-47-67-86', xmlrpc: { host: 'host.contoso.com', port: 10000 } }),
      buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_DNS_REQUEST', dspecName: 'example', site: 'www.contoso.com' }),
      buildFscmtDuplicateServerMessage({
        command: 'PPDUP_ADD',
        dspecName: 'example',
        id: '70-86-12-20',
        uri: 'http://www.contoso.com/',
        csum: Uint8Array.from([0xa9, 0xeb, 0xcb, 0x8f, 0xac, 0xbd, 0xc7, 0x43, 0x77, 0x5a, 0x1d, 0x3b, 0x52, 0x2d, 0xa8, 0xb6]),
      }),
    ];
    const vectors = [FSCMT_VECTORS.CMD_UM_INIT, FSCMT_VECTORS.CMD_UM_DNS_REQUEST, FSCMT_VECTORS.PPDUP_ADD];
    vectors.forEach((vector, i) => {
      const decoded = decodeFscmtFrame(vectorBytes(vector)).dict;
      expect(fswcuEquals(built[i]!, decoded, { ignoreDictOrder: true })).toBe(true);
      // Same size: the same entries, only in another order.
      expect(encodeFswcu(built[i]!).length).toBe(encodeFswcu(decoded).length);
    });
    expect(built[0]!.getText('cm')).toBe(FSCMT_COMMANDS.CMD_UM_INIT);
  });

  it('the three frames back to back, fed one byte at a time, give the three messages in order', () => {
    const stream = [FSCMT_VECTORS.CMD_UM_INIT, FSCMT_VECTORS.CMD_UM_DNS_REQUEST, FSCMT_VECTORS.PPDUP_ADD].map(vectorBytes);
    const all = new Uint8Array(stream.reduce((n, s) => n + s.length, 0));
    stream.reduce((at, s) => (all.set(s, at), at + s.length), 0);
    const seen: Array<[number, number, number]> = [];
    const parser = new FscmtFrameParser((m) => seen.push([m.dict.getText('cm') as number, m.priority, m.offset]));
    for (let i = 0; i < all.length; i++) parser.parse(all.subarray(i, i + 1));
    parser.end();
    expect(seen).toEqual([
      [24, 0, 0],
      [12, 1, 89],
      [52, 0, 163],
    ]);
  });
});
