/**
 * FSWCU: CPython's marshal format version 0, the serialization under every FSCMT message.
 *
 *   import { decodeFswcu, encodeFswcu, fswcuTuple, FswcuDict, fswcuBytes } from '@esp/codecs';
 *   const bytes = encodeFswcu(fswcuTuple(new FswcuDict([[fswcuBytes('cm'), 10]]), 0));
 *   decodeFswcu(bytes); // FswcuTuple [FswcuDict { b'cm': 10 }, 0]
 */
export {
  FswcuDict,
  FswcuFloat,
  FswcuInt64,
  FswcuTuple,
  fswcuBytes,
  fswcuBytesEqual,
  fswcuKeyIs,
  fswcuTuple,
  type FswcuFloatOptions,
  type FswcuValue,
} from './fswcu-value';
export { decodeFswcu, decodeFswcuPrefix, FSWCU_DEFAULT_MAX_DEPTH, type FswcuDecodeOptions } from './fswcu-decoder';
export { encodeFswcu, FswcuWriter, type FswcuEncodeOptions } from './fswcu-encoder';
export { fswcuEquals, type FswcuEqualsOptions } from './fswcu-equals';
export { formatFswcuFloatText, parseFswcuFloatText } from './fswcu-float-text';
export {
  fswcuDictFromJsonEntries,
  fswcuDictToJsonEntries,
  fswcuFromJson,
  FswcuJsonError,
  fswcuToJson,
  type FswcuJson,
} from './fswcu-json';
export {
  FswcuBadFloatError,
  FswcuBadLengthError,
  FswcuBadLongError,
  FswcuBadStringError,
  FswcuBadTypeCodeError,
  FswcuDepthError,
  FswcuEncodeError,
  FswcuTrailingBytesError,
  FswcuTruncatedError,
} from './fswcu-errors';
