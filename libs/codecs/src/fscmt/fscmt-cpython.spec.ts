/**
 * FSCMT frames against CPython: frames Python builds (`len(body).to_bytes(4, 'big') + marshal.dumps((d, p), 0)`)
 * parse here to the same messages, frames built here parse in Python to the same messages, and both sides
 * produce identical bytes. One python3 process per property.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fswcuEquals } from '../fswcu/fswcu-equals';
import { fswcuDictFromJsonEntries, fswcuDictToJsonEntries } from '../fswcu/fswcu-json';
import { FswcuDict } from '../fswcu/fswcu-value';
import { asPythonSees } from '../fswcu/testing/arbitraries';
import { fromHex, runMarshalOracle, toHex } from '../fswcu/testing/cpython-marshal';
import { encodeFscmtFrame, type FscmtMessage } from './fscmt-frame';
import { FscmtFrameParser } from './fscmt-frame-parser';
import { fscmtFrameArb } from './testing/frame-arbitraries';

const BATCH = 300;

describe('FSCMT frames against CPython', () => {
  it('frames CPython writes parse here to the same (dict, priority), and encode here to the same bytes', () => {
    const frames = fc.sample(fscmtFrameArb({ cpythonDumps: true }), { numRuns: BATCH, seed: 0xf1 });
    const replies = runMarshalOracle(
      'frame_dumps',
      frames.map((f) => ({ dict: fswcuDictToJsonEntries(f.dict), priority: f.priority })),
    );
    // All of CPython's frames as one stream, parsed in one go: frames must not bleed into each other.
    const stream = fromHex(replies.map((r) => String(r)).join(''));
    const got: FscmtMessage[] = [];
    const parser = new FscmtFrameParser((m) => got.push(m));
    for (let at = 0; at < stream.length; at += 97) parser.parse(stream.subarray(at, at + 97));
    parser.end();
    expect(got.length).toBe(frames.length);
    frames.forEach((frame, i) => {
      expect(got[i]!.priority).toBe(frame.priority);
      expect(fswcuEquals(got[i]!.dict, frame.dict), `frame #${i}`).toBe(true);
      expect(toHex(encodeFscmtFrame(frame.dict, frame.priority)), `frame #${i}`).toBe(replies[i]);
    });
  });

  it('frames encoded here parse in CPython to the same (dict, priority)', () => {
    const frames = fc.sample(fscmtFrameArb({ cpythonDumps: false }), { numRuns: BATCH, seed: 0xf2 });
    const stream = frames.map((f) => toHex(encodeFscmtFrame(f.dict, f.priority))).join('');
    const [reply] = runMarshalOracle('frame_loads', [stream]);
    if (!Array.isArray(reply)) throw new Error(`CPython could not read the frames: ${JSON.stringify(reply)}`);
    expect(reply.length).toBe(frames.length);
    frames.forEach((frame, i) => {
      const loaded = reply[i] as { dict: unknown; priority: number };
      expect(loaded.priority).toBe(frame.priority);
      const expected = asPythonSees(frame.dict) as FswcuDict;
      expect(fswcuEquals(fswcuDictFromJsonEntries(loaded.dict), expected), `frame #${i}`).toBe(true);
    });
  });
});
