import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrames, encodedSpan, encodeFrames, MAX_FRAMES, PppFrameError } from './frames';

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

  it('span - the tail of a message received, from its empty delimiter on, is a reply already: a view, not a copy', () => {
    const body = new Uint8Array(255).fill(7);
    const received = encodeFrames([Buffer.from('w1'), Buffer.from('req-1'), new Uint8Array(0), body, Buffer.from('more')]);
    const [, , , b1, b2] = decodeFrames(received) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    const span = encodedSpan([new Uint8Array(0), b1, b2]);
    expect(span && hex(span)).toBe(hex(encodeFrames([new Uint8Array(0), body, Buffer.from('more')])));
    expect(span?.buffer).toBe(received.buffer);
  });

  it('span - frames that are not where their encoding is give undefined (encodeFrames copies them)', () => {
    const received = encodeFrames([Buffer.from('w1'), Buffer.from('req-1'), new Uint8Array(0), Buffer.from('body')]);
    const [w, addr, , body] = decodeFrames(received) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    // a copy of a frame, frames out of order, a frame left out between two, an empty last frame, no frames
    expect(encodedSpan([new Uint8Array(0), Buffer.from('body')])).toBeUndefined();
    expect(encodedSpan([addr, w])).toBeUndefined();
    expect(encodedSpan([w, new Uint8Array(0), body])).toBeUndefined();
    expect(encodedSpan([addr, body])).toBeUndefined();
    expect(encodedSpan([body, new Uint8Array(0)])).toBeUndefined();
    expect(encodedSpan([])).toBeUndefined();
    // an empty frame is accepted only where four zero bytes are: here, the delimiter's length, not the address's
    expect(encodedSpan([new Uint8Array(0), new Uint8Array(0), body])).toBeUndefined();
  });

  it('property - a span, when there is one, is exactly encodeFrames of the frames; a run of views is always one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        fc.array(fc.boolean(), { maxLength: 8 }),
        (frames, from, count, emptyElsewhere) => {
          const decoded = decodeFrames(encodeFrames(frames));
          const i = from % decoded.length;
          const views = decoded.slice(i, i + 1 + (count % (decoded.length - i)));
          // the run, some of its empty frames replaced by empty frames of other memory
          const run = views.map((f, k) => (f.length === 0 && emptyElsewhere[k] ? new Uint8Array(0) : f));
          const span = encodedSpan(run);
          if (span) expect(hex(span)).toBe(hex(encodeFrames(run)));
          if ((views[views.length - 1]?.length ?? 0) > 0) expect(span).toBeDefined();
          else expect(span).toBeUndefined();
        },
      ),
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
