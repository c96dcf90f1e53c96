/**
 * Z85 (ZeroMQ RFC 32), the text form of CURVE keys: 4 bytes become 5 characters. Only encoding is needed here: the
 * ZAP handler receives a client's key as 32 bytes and compares its Z85 text with the allowed keys.
 */
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';

export function z85Encode(bytes: Uint8Array): string {
  if (bytes.length % 4 !== 0) throw new RangeError(`Z85 encodes whole 4-byte groups; got ${bytes.length} bytes`);
  let out = '';
  for (let i = 0; i < bytes.length; i += 4) {
    let value = new DataView(bytes.buffer, bytes.byteOffset + i, 4).getUint32(0);
    const chunk: string[] = [];
    for (let j = 0; j < 5; j++) {
      chunk.push(ALPHABET.charAt(value % 85));
      value = Math.floor(value / 85);
    }
    out += chunk.reverse().join('');
  }
  return out;
}

/** A CURVE key in Z85: 40 characters of the alphabet. */
export function isZ85Key(text: string): boolean {
  return text.length === 40 && [...text].every((c) => ALPHABET.includes(c));
}
