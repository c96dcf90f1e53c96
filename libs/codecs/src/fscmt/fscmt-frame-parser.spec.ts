import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError } from '../errors';
import { FswcuBadTypeCodeError, FswcuTruncatedError } from '../fswcu/fswcu-errors';
import { fswcuEquals } from '../fswcu/fswcu-equals';
import { FswcuDict, fswcuBytes, fswcuBytesEqual } from '../fswcu/fswcu-value';
import {
  FscmtBadPriorityError,
  FscmtFrameTooLargeError,
  FscmtMalformedFrameError,
  FscmtTrailingBytesError,
  FscmtTruncatedFrameError,
} from './fscmt-errors';
import { encodeFscmtFrame, type FscmtMessage } from './fscmt-frame';
import { FscmtFrameParser } from './fscmt-frame-parser';
import { fscmtFrameStreamArb, type FrameSpec } from './testing/frame-arbitraries';

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

function collect(chunks: Uint8Array[], options?: { maxFrameBytes?: number }): FscmtMessage[] {
  const out: FscmtMessage[] = [];
  const parser = new FscmtFrameParser((m) => out.push(m), options);
  for (const chunk of chunks) parser.parse(chunk);
  parser.end();
  return out;
}

/** Splits bytes at the given cut points (any order, duplicates allowed: empty chunks are part of the test). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [0, ...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length];
  return points.slice(1).map((end, i) => bytes.subarray(points[i], end));
}

function sameMessages(got: FscmtMessage[], frames: FrameSpec[]): void {
  expect(got.length).toBe(frames.length);
  got.forEach((m, i) => {
    expect(m.priority).toBe(frames[i]!.priority);
    expect(fswcuEquals(m.dict, frames[i]!.dict)).toBe(true);
  });
}

const keepalive = new FswcuDict([[fswcuBytes('cm'), 10]]);

/** A frame whose body is the given bytes. */
function rawFrame(body: number[]): Uint8Array {
  const n = body.length;
  return Uint8Array.from([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff, ...body]);
}

function errorOf(fn: () => void): CodecError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CodecError) return err;
    throw err;
  }
  throw new Error('expected a CodecError');
}

describe('FscmtFrameParser chunking', () => {
  it('byte-at-a-time, random splits and one big chunk give the same messages', () => {
    fc.assert(
      fc.property(fscmtFrameStreamArb, fc.array(fc.nat(), { maxLength: 12 }), (frames, cuts) => {
        const bytes = concat(frames.map((f) => encodeFscmtFrame(f.dict, f.priority)));
        sameMessages(collect([bytes]), frames);
        sameMessages(collect(split(bytes, cuts)), frames);
        sameMessages(
          collect(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))),
          frames,
        );
      }),
      { numRuns: 150 },
    );
  });

  it('midFrame is true exactly between the first byte of a frame and its last', () => {
    const frame = encodeFscmtFrame(keepalive, 1);
    const parser = new FscmtFrameParser(() => undefined);
    expect(parser.midFrame).toBe(false);
    parser.parse(frame.subarray(0, 2));
    expect(parser.midFrame).toBe(true);
    parser.parse(frame.subarray(2, frame.length - 1));
    expect(parser.midFrame).toBe(true);
    parser.parse(frame.subarray(frame.length - 1));
    expect(parser.midFrame).toBe(false);
  });

  it('reports each frame with its stream offset and size', () => {
    const a = encodeFscmtFrame(keepalive, 0);
    const b = encodeFscmtFrame(keepalive, 1);
    const got = collect([concat([a, b])]);
    expect(got.map((m) => [m.offset, m.frameBytes, m.priority])).toEqual([
      [0, a.length, 0],
      [a.length, b.length, 1],
    ]);
  });

  it('a 1 MiB frame trickled in 1-byte chunks is gathered in about its own size of memory', () => {
    const payload = new Uint8Array(1 << 20).fill(0x61);
    const frame = encodeFscmtFrame(new FswcuDict([[fswcuBytes('pd'), payload]]), 0);
    const got: FscmtMessage[] = [];
    const parser = new FscmtFrameParser((m) => got.push(m));
    const before = process.memoryUsage();
    for (let i = 0; i < frame.length - 1; i++) parser.parse(frame.subarray(i, i + 1));
    const during = process.memoryUsage();
    // One chunk object per byte would cost over 100 MB here; the doubling buffer stays near the frame size.
    expect(during.arrayBuffers - before.arrayBuffers + (during.heapUsed - before.heapUsed)).toBeLessThan(16 << 20);
    parser.parse(frame.subarray(frame.length - 1));
    parser.end();
    expect(fswcuBytesEqual(got[0]!.dict.getText('pd') as Uint8Array, payload)).toBe(true);
  });

  it('decoded byte strings survive the caller reusing its chunk buffer', () => {
    const frame = encodeFscmtFrame(new FswcuDict([[fswcuBytes('dn'), fswcuBytes('example')]]), 0);
    const chunk = frame.slice();
    const got: FscmtMessage[] = [];
    const parser = new FscmtFrameParser((m) => got.push(m));
    parser.parse(chunk.subarray(0, 7));
    parser.parse(chunk.subarray(7));
    chunk.fill(0);
    expect(got[0]!.dict.getText('dn')).toEqual(fswcuBytes('example'));
  });
});

describe('FscmtFrameParser errors', () => {
  it('a length above maxFrameBytes is refused from the header alone, before the body arrives', () => {
    const parser = new FscmtFrameParser(() => undefined, { maxFrameBytes: 1024 });
    parser.parse(encodeFscmtFrame(keepalive, 0));
    const err = errorOf(() => parser.parse(Uint8Array.from([0, 0, 4, 1])));
    expect(err).toBeInstanceOf(FscmtFrameTooLargeError);
    expect(err.offset).toBe(encodeFscmtFrame(keepalive, 0).length);
    // the parser stays failed: the stream cannot be resynchronised
    expect(() => parser.parse(encodeFscmtFrame(keepalive, 0))).toThrow(FscmtFrameTooLargeError);
  });

  it('the default maximum is 16 MiB', () => {
    const parser = new FscmtFrameParser(() => undefined);
    expect(() => parser.parse(Uint8Array.from([0x01, 0x00, 0x00, 0x01]))).toThrow(FscmtFrameTooLargeError);
    const ok = new FscmtFrameParser(() => undefined);
    ok.parse(Uint8Array.from([0x01, 0x00, 0x00, 0x00]));
    expect(() => ok.end()).toThrow(FscmtTruncatedFrameError);
  });

  it('end() inside a header or a body is a truncated frame naming where the frame starts', () => {
    const frame = encodeFscmtFrame(keepalive, 0);
    for (const cut of [1, 3, 4, 10, frame.length - 1]) {
      const parser = new FscmtFrameParser(() => undefined);
      parser.parse(frame);
      parser.parse(frame.subarray(0, cut));
      const err = errorOf(() => parser.end());
      expect(err).toBeInstanceOf(FscmtTruncatedFrameError);
      expect(err.offset).toBe(frame.length);
    }
  });

  it('a bad type code inside a frame is reported at its stream offset', () => {
    const err = errorOf(() => collect([encodeFscmtFrame(keepalive, 0), rawFrame([0x28, 2, 0, 0, 0, 0x7b, 0x3c])]));
    expect(err).toBeInstanceOf(FswcuBadTypeCodeError);
    expect(err.offset).toBe(encodeFscmtFrame(keepalive, 0).length + 4 + 6);
  });

  it('a priority other than 0 or 1 is refused, and so is a priority of another type', () => {
    for (const priority of [[0x69, 2, 0, 0, 0], [0x54], [0x6c, 1, 0, 0, 0, 1, 0]]) {
      const err = errorOf(() => collect([rawFrame([0x28, 2, 0, 0, 0, 0x7b, 0x30, ...priority])]));
      expect(err).toBeInstanceOf(FscmtBadPriorityError);
      expect(err.offset).toBe(4 + 7);
    }
  });

  it('bytes after the (dict, priority) tuple inside a frame are refused', () => {
    const err = errorOf(() => collect([rawFrame([0x28, 2, 0, 0, 0, 0x7b, 0x30, 0x69, 0, 0, 0, 0, 0x4e])]));
    expect(err).toBeInstanceOf(FscmtTrailingBytesError);
    expect(err.offset).toBe(4 + 12);
  });

  it('a frame length too short for its tuple is a truncated value', () => {
    expect(() => collect([rawFrame([0x28, 2, 0, 0, 0, 0x7b, 0x30])])).toThrow(FswcuTruncatedError);
  });

  it('bodies that are not a (dict, priority) 2-tuple are malformed frames', () => {
    for (const body of [[], [0x4e], [0x28, 3, 0, 0, 0], [0x28, 2, 0, 0, 0, 0x5b, 0, 0, 0, 0, 0x69, 0, 0, 0, 0], [0x28, 2, 0]]) {
      expect(() => collect([rawFrame(body)]), JSON.stringify(body)).toThrow(FscmtMalformedFrameError);
    }
  });

  it('encodeFscmtFrame refuses a bad priority and a non-dict message', () => {
    expect(() => encodeFscmtFrame(keepalive, 2 as 0)).toThrow(FscmtBadPriorityError);
    expect(() => encodeFscmtFrame([] as unknown as FswcuDict, 0)).toThrow(FscmtMalformedFrameError);
  });

  it('a handler that throws leaves the parser failed with that error', () => {
    const boom = new Error('handler failed');
    const parser = new FscmtFrameParser(() => {
      throw boom;
    });
    expect(() => parser.parse(encodeFscmtFrame(keepalive, 0))).toThrow(boom);
    expect(() => parser.parse(new Uint8Array(0))).toThrow(boom);
  });
});

describe('FscmtFrameParser hostile input', () => {
  it('random bytes, in random chunks, only ever raise CodecErrors and never hang', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 200 }), fc.array(fc.nat(), { maxLength: 8 }), (bytes, cuts) => {
        const input = Uint8Array.from(bytes);
        try {
          collect(split(input, cuts), { maxFrameBytes: 64 * 1024 });
        } catch (err) {
          expect(err).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('every truncation and every single-byte mutation of valid streams fails only with CodecErrors', () => {
    fc.assert(
      fc.property(fscmtFrameStreamArb, fc.nat(), fc.integer({ min: 0, max: 255 }), (frames, at, byte) => {
        const encoded = frames.map((f) => encodeFscmtFrame(f.dict, f.priority));
        const bytes = concat(encoded);
        if (bytes.length === 0) return;
        const boundaries = new Set<number>([0]);
        encoded.reduce((end, frame) => (boundaries.add(end + frame.length), end + frame.length), 0);
        for (const cut of [at % bytes.length, bytes.length - 1, 1]) {
          if (!boundaries.has(cut)) expect(() => collect([bytes.subarray(0, cut)])).toThrow(CodecError);
        }
        const mutated = bytes.slice();
        mutated[at % bytes.length] = byte;
        try {
          collect([mutated]);
        } catch (err) {
          expect(err).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
