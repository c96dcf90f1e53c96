/**
 * Structural equality of FSWCU values, keeping every distinction the wire keeps (tuple vs list, bytes vs unicode,
 * int vs long vs int64, float vs int). The spelling of an 'f' float's text is not part of its value.
 *
 *   fswcuEquals(decodeFswcu(a), decodeFswcu(b));
 *   fswcuEquals(x, y, { ignoreDictOrder: true }); // dicts as Python compares them
 */
import { fswcuBytesEqual, FswcuDict, FswcuFloat, FswcuInt64, FswcuTuple, type FswcuValue } from './fswcu-value';

export interface FswcuEqualsOptions {
  /** Compare dicts as sets of entries (Python semantics) rather than as ordered lists (wire semantics). */
  ignoreDictOrder?: boolean;
}

export function fswcuEquals(a: FswcuValue, b: FswcuValue, options: FswcuEqualsOptions = {}): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && fswcuBytesEqual(a, b);
  if (a instanceof FswcuFloat) {
    if (!(b instanceof FswcuFloat) || a.binary !== b.binary) return false;
    return Object.is(a.value, b.value) || (Number.isNaN(a.value) && Number.isNaN(b.value));
  }
  if (a instanceof FswcuInt64) return b instanceof FswcuInt64 && a.value === b.value;
  if (a instanceof FswcuTuple) return b instanceof FswcuTuple && itemsEqual(a.items, b.items, options);
  if (Array.isArray(a)) return Array.isArray(b) && itemsEqual(a, b, options);
  if (a instanceof FswcuDict) return b instanceof FswcuDict && dictsEqual(a, b, options);
  return false;
}

function itemsEqual(a: FswcuValue[], b: FswcuValue[], options: FswcuEqualsOptions): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!fswcuEquals(a[i], b[i], options)) return false;
  return true;
}

function dictsEqual(a: FswcuDict, b: FswcuDict, options: FswcuEqualsOptions): boolean {
  if (a.entries.length !== b.entries.length) return false;
  if (!options.ignoreDictOrder) {
    return a.entries.every(
      (entry, i) => fswcuEquals(entry[0], b.entries[i][0], options) && fswcuEquals(entry[1], b.entries[i][1], options),
    );
  }
  const used = new Array<boolean>(b.entries.length).fill(false);
  return a.entries.every(([key, value]) => {
    const j = b.entries.findIndex((entry, k) => !used[k] && fswcuEquals(entry[0], key, options));
    if (j < 0 || !fswcuEquals(value, b.entries[j][1], options)) return false;
    used[j] = true;
    return true;
  });
}
