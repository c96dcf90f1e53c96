/**
 * Python longs ('l'): a signed int32 digit count (its sign is the number's sign), then |count| digits of 15 bits,
 * least significant first, each as uint16 LE. Conversions go through hexadecimal text so they stay linear in the
 * size of the number; shifting a bigint digit by digit would be quadratic, which hostile input could exploit.
 */

const SHIFT = 15;
const DIGIT_MASK = 0x7fff;
const HEX = '0123456789abcdef';
const hexDecoder = new TextDecoder();

/**
 * Reads `count` 15-bit digits at bytes[pos]. The caller has checked bounds and digit validity.
 * Returns the magnitude.
 */
export function readFswcuLongMagnitude(bytes: Uint8Array, pos: number, count: number): bigint {
  if (count <= 3) {
    // Up to 45 bits: exact in a double, no need for text.
    let v = 0;
    for (let k = count - 1; k >= 0; k--) v = v * 32768 + (bytes[pos + 2 * k] | (bytes[pos + 2 * k + 1] << 8));
    return BigInt(v);
  }
  const nibbles = new Uint8Array(Math.ceil((count * SHIFT) / 4));
  let n = 0;
  let acc = 0;
  let bits = 0;
  for (let k = 0; k < count; k++) {
    acc |= (bytes[pos + 2 * k] | (bytes[pos + 2 * k + 1] << 8)) << bits;
    bits += SHIFT;
    while (bits >= 4) {
      nibbles[n++] = HEX.charCodeAt(acc & 15);
      acc >>>= 4;
      bits -= 4;
    }
  }
  if (bits > 0) nibbles[n++] = HEX.charCodeAt(acc & 15);
  nibbles.subarray(0, n).reverse();
  return BigInt(`0x${hexDecoder.decode(nibbles.subarray(0, n))}`);
}

/** The 15-bit digits of |value|, least significant first (empty for zero). */
export function fswcuLongDigits(value: bigint): Uint16Array {
  const magnitude = value < 0n ? -value : value;
  if (magnitude < 9007199254740992n) {
    let v = Number(magnitude);
    const digits: number[] = [];
    while (v > 0) {
      digits.push(v % 32768);
      v = Math.floor(v / 32768);
    }
    return Uint16Array.from(digits);
  }
  const hex = magnitude.toString(16);
  const digits = new Uint16Array(Math.ceil((hex.length * 4) / SHIFT));
  let n = 0;
  let acc = 0;
  let bits = 0;
  for (let i = hex.length - 1; i >= 0; i--) {
    const c = hex.charCodeAt(i);
    acc |= (c <= 0x39 ? c - 0x30 : c - 0x57) << bits; // '0'-'9', 'a'-'f'
    bits += 4;
    if (bits >= SHIFT) {
      digits[n++] = acc & DIGIT_MASK;
      acc >>>= SHIFT;
      bits -= SHIFT;
    }
  }
  if (acc !== 0) digits[n++] = acc;
  // The top hex digit may have had leading zero bits, leaving zero digits at the top; drop them (normalised form).
  while (n > 0 && digits[n - 1] === 0) n--;
  return digits.subarray(0, n);
}
