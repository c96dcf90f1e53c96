/**
 * Test helper: fast-check arbitraries for FSCMT frames: message dicts with PKT_* byte-string keys (and the odd
 * other key) holding any FSWCU value, and a 0/1 priority.
 */
import fc from 'fast-check';
import { FswcuDict, fswcuBytes, type FswcuValue } from '../../fswcu/fswcu-value';
import { fswcuValueArb, keyArb, pythonKey } from '../../fswcu/testing/arbitraries';
import type { FscmtPriority } from '../fscmt-frame';
import { FSCMT_KEYS } from '../fscmt-keys';

export interface FrameSpec {
  dict: FswcuDict;
  priority: FscmtPriority;
}

const pktKeyArb = fc.constantFrom(...Object.values(FSCMT_KEYS)).map((k): FswcuValue => fswcuBytes(k));

export function fscmtFrameArb(options: { cpythonDumps: boolean }): fc.Arbitrary<FrameSpec> {
  const value = fswcuValueArb({ ...options, maxDepth: 3 });
  const entries = fc.uniqueArray(fc.tuple(fc.oneof({ weight: 4, arbitrary: pktKeyArb }, keyArb), value), {
    maxLength: 8,
    selector: ([k]) => pythonKey(k),
  });
  return fc.record({
    dict: entries.map((e) => new FswcuDict(e)),
    priority: fc.constantFrom<FscmtPriority>(0, 1),
  });
}

export const fscmtFrameStreamArb = fc.array(fscmtFrameArb({ cpythonDumps: false }), { maxLength: 5 });
