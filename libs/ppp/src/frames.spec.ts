import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrames, encodeFrameParts, encodeFrames, MAX_FRAMES, PppFrameError } from './frames';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('frames codec', () => {
  it('encode - a READY from worker "w1" is two length-prefixed frames', () => {
    expect(hex(encodeFrames([Buffer.from('w1'), Uint8Array.of(1)]))).toBe('00000002773100000001' + '01');
  });

  it('decode - empty frames (the delimiter) survive the round trip', () => {
    const frames = [Buffer.from('addr'), new Uint8Array(0), Buffer.from('body')];
    expect(decodeFrames(encodeFrames(frames)).map(hex)).toEqual(frames.map(hex));
  });

  it('decode - truncated length, truncated frame and empty input are PppFrameError', () => {
    expect(() => decodeFrames(new Uint8Array(0))).toThrow(PppFrameError);
    expect(() => decodeFrames(Uint8Array.of(0, 0, 0))).toThrow(/truncated length/);
    expect(() => decodeFrames(Uint8Array.of(0, 0, 0, 5, 1, 2))).toThrow(/claims 5 bytes, 2 left/);
    expect(() => decodeFrames(Uint8Array.of(0xff, 0xff, 0xff, 0xff))).toThrow(PppFrameError);
  });

  it('encode - no frames or too many frames is PppFrameError', () => {
    expect(() => encodeFrames([])).toThrow(PppFrameError);
    expect(() => encodeFrames(Array.from({ length: MAX_FRAMES + 1 }, () => new Uint8Array(0)))).toThrow(PppFrameError);
    expect(() => decodeFrames(new Uint8Array(4 * (MAX_FRAMES + 1)))).toThrow(/more than/);
  });

  it('decode - a subarray view at an offset decodes like a copy', () => {
    const enc = encodeFrames([Buffer.from('x'), Buffer.from('yz')]);
    const big = new Uint8Array(enc.length + 7);
    big.set(enc, 3);
    expect(decodeFrames(big.subarray(3, 3 + enc.length)).map(hex)).toEqual(['78', '797a']);
  });

  it('encode - each message is its own bytes: a later encode does not change an earlier one, slice() copies', () => {
    const first = encodeFrames([Buffer.from('a'), Buffer.from('b')]);
    const copy = first.slice();
    const second = encodeFrames([Buffer.from('c'), Buffer.from('d')]);
    expect(hex(first)).toBe('00000001610000000162');
    expect(hex(second)).toBe('00000001630000000164');
    copy[4] = 0x7a;
    expect(hex(first)).toBe('00000001610000000162');
    expect(first).not.toBeInstanceOf(Buffer);
  });

  it('parts - the parts of a message are its bytes; frames over 64 bytes are parts of their own, not copied', () => {
    const body = new Uint8Array(255).fill(7);
    const parts = encodeFrameParts([Buffer.from('req-1'), new Uint8Array(0), body]);
    expect(parts.map((p) => p.length)).toEqual([4 + 5 + 4 + 4, 255]);
    expect(parts[1]).toBe(body);
    expect(hex(Buffer.concat(parts))).toBe(hex(encodeFrames([Buffer.from('req-1'), new Uint8Array(0), body])));
    expect(encodeFrameParts([new Uint8Array(64)]).length).toBe(1);
    expect(() => encodeFrameParts([])).toThrow(PppFrameError);
    expect(() => encodeFrameParts(Array.from({ length: MAX_FRAMES + 1 }, () => new Uint8Array(0)))).toThrow(PppFrameError);
  });

  it('property - the parts of any frames concatenate to encodeFrames of them', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { minLength: 1, maxLength: 12 }), (frames) => {
        expect(hex(Buffer.concat(encodeFrameParts(frames)))).toBe(hex(encodeFrames(frames)));
      }),
      { numRuns: 1000 },
    );
  });

  it('property - any frames round-trip', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { minLength: 1, maxLength: 20 }), (frames) => {
        expect(decodeFrames(encodeFrames(frames)).map(hex)).toEqual(frames.map(hex));
      }),
    );
  });

  it('property - any bytes decode to frames or raise PppFrameError, nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          const frames = decodeFrames(bytes);
          expect(hex(encodeFrames(frames))).toBe(hex(bytes));
        } catch (err) {
          expect(err).toBeInstanceOf(PppFrameError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('property - a valid message with bytes flipped or cut decodes or raises PppFrameError', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 16 }), { minLength: 1, maxLength: 8 }), fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(), (frames, pos, byte, cut) => {
        const enc = encodeFrames(frames).slice();
        enc[pos % enc.length] = byte;
        const cutAt = cut % (enc.length + 1);
        for (const input of [enc, enc.subarray(0, cutAt)]) {
          try {
            decodeFrames(input);
          } catch (err) {
            expect(err).toBeInstanceOf(PppFrameError);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
