import { CodecError } from '../errors';

/**
 * One class per FSWCU failure. Offsets are byte offsets into the decoder's input (plus `baseOffset` when the
 * caller decodes a slice of a larger stream, as the FSCMT frame parser does).
 */

/** The input ended inside a value. */
export class FswcuTruncatedError extends CodecError {
  override name = 'FswcuTruncatedError';
  constructor(message: string, offset: number) {
    super('FSWCU_TRUNCATED', message, { offset });
  }
}

/** A byte that is not one of the supported type codes where a value was expected. */
export class FswcuBadTypeCodeError extends CodecError {
  override name = 'FswcuBadTypeCodeError';
  readonly typeCode: number;
  constructor(typeCode: number, offset: number) {
    const shown = typeCode >= 0x20 && typeCode < 0x7f ? `'${String.fromCharCode(typeCode)}' ` : '';
    super('FSWCU_BAD_TYPE_CODE', `bad FSWCU type code ${shown}(0x${typeCode.toString(16).padStart(2, '0')})`, { offset });
    this.typeCode = typeCode;
  }
}

/** A length or count field that is negative or larger than the bytes left could ever hold. */
export class FswcuBadLengthError extends CodecError {
  override name = 'FswcuBadLengthError';
  constructor(message: string, offset: number) {
    super('FSWCU_BAD_LENGTH', message, { offset });
  }
}

/** Containers nested deeper than the configured maximum (guards the stack against hostile input). */
export class FswcuDepthError extends CodecError {
  override name = 'FswcuDepthError';
  constructor(maxDepth: number, offset?: number) {
    super('FSWCU_TOO_DEEP', `FSWCU value nested deeper than ${maxDepth} levels`, { offset });
  }
}

/** An 'l' long that CPython would refuse too: a digit above 15 bits, or a zero top digit (not normalised). */
export class FswcuBadLongError extends CodecError {
  override name = 'FswcuBadLongError';
  constructor(message: string, offset: number) {
    super('FSWCU_BAD_LONG', message, { offset });
  }
}

/** An 'f' float whose text is not a number CPython would read. */
export class FswcuBadFloatError extends CodecError {
  override name = 'FswcuBadFloatError';
  constructor(message: string, offset: number) {
    super('FSWCU_BAD_FLOAT', message, { offset });
  }
}

/** A 'u' string that is not UTF-8 (lone surrogates are allowed, as CPython's "surrogatepass" allows them). */
export class FswcuBadStringError extends CodecError {
  override name = 'FswcuBadStringError';
  constructor(message: string, offset: number) {
    super('FSWCU_BAD_STRING', message, { offset });
  }
}

/** Bytes left over after the one value that should fill the input. */
export class FswcuTrailingBytesError extends CodecError {
  override name = 'FswcuTrailingBytesError';
  constructor(count: number, offset: number) {
    super('FSWCU_TRAILING_BYTES', `${count} trailing byte(s) after the FSWCU value`, { offset });
  }
}

/** A JavaScript value that has no FSWCU form (a fractional number, undefined, a cycle, ...). */
export class FswcuEncodeError extends CodecError {
  override name = 'FswcuEncodeError';
  constructor(message: string) {
    super('FSWCU_UNENCODABLE', message);
  }
}
