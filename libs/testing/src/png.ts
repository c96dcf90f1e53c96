import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * A real PNG (signature, IHDR, IDAT, IEND) of `w` x `h` pixels: 8-bit greyscale (colour type 0) or RGB (2), whose
 * rows (`bytesPerPixel` x w bytes each) `pixels` fills; filter "none" on every row.
 */
export function encodePng(w: number, h: number, colourType: 0 | 2, pixels: (x: number, y: number) => number[]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, colourType, 0, 0, 0], 8);
  const bpp = colourType === 2 ? 3 : 1;
  const raw = Buffer.alloc(h * (1 + w * bpp));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set(pixels(x, y), y * (1 + w * bpp) + 1 + x * bpp);
  return Buffer.concat([SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A 1x1 grey PNG. */
export function tinyPng(): Buffer {
  return encodePng(1, 1, 0, () => [0x80]);
}
