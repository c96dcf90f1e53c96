import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ChunkReassembly, DEFAULT_REASSEMBLY_LIMITS, type DropReason } from './chunk-reassembly';
import { chunkFrames, isChunkFrame, readChunkFrame, type ChunkFrame } from './chunks';

const frames = (bytes: Uint8Array, source = 'a:1', set = 1, max = 1024): ChunkFrame[] => chunkFrames(bytes, source, set, max).map((f) => readChunkFrame(f)!);

function setup(limits: Partial<typeof DEFAULT_REASSEMBLY_LIMITS> = {}) {
  let t = 0;
  const drops: DropReason[] = [];
  const r = new ChunkReassembly({ ...DEFAULT_REASSEMBLY_LIMITS, ...limits }, () => t, (reason) => drops.push(reason));
  return { r, drops, advance: (ms: number) => (t += ms) };
}

describe('chunk frames', () => {
  it('every frame fits the limit, starts with the mark no MessagePack value starts with, and they cover the message', () => {
    const msg = randomBytes(10_000);
    const raw = chunkFrames(msg, 'cd-1:x', 7, 1024);
    expect(raw.length).toBeGreaterThan(10);
    for (const f of raw) {
      expect(f.length).toBeLessThanOrEqual(1024);
      expect(isChunkFrame(f)).toBe(true);
    }
    const parts = raw.map((f) => readChunkFrame(f)!);
    expect(parts.map((p) => p.set)).toEqual(raw.map(() => 7));
    expect(Buffer.concat(parts.map((p) => p.data)).equals(msg)).toBe(true);
  });

  it('a malformed frame is refused', () => {
    expect(readChunkFrame(Uint8Array.of(0xc1, 0, 200, 1, 2, 3))).toBeUndefined();
    expect(readChunkFrame(Uint8Array.of(0x91, 1, 2, 3))).toBeUndefined();
  });
});

describe('ChunkReassembly', () => {
  it('gives the message back once its last frame is in, then holds nothing', () => {
    const { r } = setup();
    const msg = randomBytes(5000);
    const fs = frames(msg);
    const out = fs.map((f) => r.take('to', f));
    expect(out.slice(0, -1).every((x) => x === undefined)).toBe(true);
    expect(Buffer.from(out.at(-1)!).equals(msg)).toBe(true);
    expect(r.heldBytes).toBe(0);
    expect(r.counters).toEqual({ completed: 1, dropped: 0 });
  });

  it('messages of two senders interleaved are both whole', () => {
    const { r } = setup();
    const a = randomBytes(3000);
    const b = randomBytes(4000);
    const fa = frames(a, 'a:1');
    const fb = frames(b, 'b:1');
    const got: Uint8Array[] = [];
    for (let i = 0; i < Math.max(fa.length, fb.length); i++) {
      for (const f of [fa[i], fb[i]]) {
        const m = f && r.take('to', f);
        if (m) got.push(m);
      }
    }
    expect(got.map((m) => Buffer.from(m).toString('hex')).sort()).toEqual([a, b].map((m) => m.toString('hex')).sort());
  });

  it('a lost frame drops its message (later frames of it are ignored) and the next message of that sender is whole', () => {
    const { r, drops } = setup();
    const fs = frames(randomBytes(5000), 'a:1', 1);
    r.take('to', fs[0]!);
    for (const f of fs.slice(2)) expect(r.take('to', f)).toBeUndefined();
    expect(drops).toEqual(['frame_lost']);
    expect(r.heldBytes).toBe(0);
    const next = randomBytes(2000);
    const out = frames(next, 'a:1', 2).map((f) => r.take('to', f));
    expect(Buffer.from(out.at(-1)!).equals(next)).toBe(true);
  });

  it('a sender that starts its next message drops the one left incomplete', () => {
    const { r, drops } = setup();
    r.take('to', frames(randomBytes(5000), 'a:1', 1)[0]!);
    const next = randomBytes(3000);
    const out = frames(next, 'a:1', 2).map((f) => r.take('to', f));
    expect(drops).toEqual(['superseded']);
    expect(Buffer.from(out.at(-1)!).equals(next)).toBe(true);
  });

  it('bounds: a message above the size limit, one beyond the sender limit and one beyond the total are refused', () => {
    const { r, drops } = setup({ maxMessageBytes: 8000, perPeerBytes: 10_000, totalBytes: 14_000 });
    expect(r.take('to', frames(randomBytes(9000), 'a:1', 1)[0]!)).toBeUndefined();
    r.take('to', frames(randomBytes(6000), 'a:1', 2)[0]!);
    r.take('all', frames(randomBytes(6000), 'a:1', 3)[0]!); // a second open message of a:1: over its 10,000
    r.take('to', frames(randomBytes(7000), 'b:1', 1)[0]!);
    r.take('to', frames(randomBytes(7000), 'c:1', 1)[0]!); // 6,000 + 7,000 held: over the 14,000 in all
    expect(drops).toEqual(['too_large', 'peer_limit', 'total_limit']);
    expect(r.heldBytes).toBe(13_000);
    expect(r.openSets).toBe(2);
  });

  it('an incomplete message is dropped after the timeout, and its memory with it', () => {
    const { r, drops, advance } = setup({ timeoutMs: 1000 });
    r.take('to', frames(randomBytes(5000))[0]!);
    expect(r.heldBytes).toBe(5000);
    advance(999);
    r.sweep();
    expect(r.heldBytes).toBe(5000);
    advance(2);
    r.sweep();
    expect(drops).toEqual(['timeout']);
    expect(r.heldBytes).toBe(0);
  });
});
