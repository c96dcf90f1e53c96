import type { ChunkFrame } from './chunks';

export interface ReassemblyLimits {
  /** A message announced larger than this is refused at its first frame (default 64 MiB). */
  maxMessageBytes: number;
  /** Bytes of incomplete messages held for one sender (default 128 MiB). */
  perPeerBytes: number;
  /** Bytes of incomplete messages held in all (default 256 MiB). */
  totalBytes: number;
  /** An incomplete message whose last frame came this long ago is dropped (default 10 s). */
  timeoutMs: number;
}

export const DEFAULT_REASSEMBLY_LIMITS: ReassemblyLimits = {
  maxMessageBytes: 64 * 1024 * 1024,
  perPeerBytes: 128 * 1024 * 1024,
  totalBytes: 256 * 1024 * 1024,
  timeoutMs: 10_000,
};

interface OpenSet {
  source: string;
  set: number;
  buf: Buffer;
  received: number;
  touched: number;
}

export type DropReason = 'too_large' | 'peer_limit' | 'total_limit' | 'timeout' | 'frame_lost' | 'superseded';

/**
 * The receiving side of chunked SSR messages (./chunks): one open message per sender and subscription (frames of
 * one publisher arrive in order, so a sender's next message starts only after the frames of the last one), held in a
 * buffer of its announced size, within a limit per sender, a limit in all and a timeout. What does not fit is
 * dropped and reported (`onDrop`); a dropped message is one lost message, which SSR's acknowledgements and resends
 * already deal with.
 */
export class ChunkReassembly {
  private readonly open = new Map<string, OpenSet>();
  /** The last set dropped per sender and subscription: its later frames are ignored, not dropped once more. */
  private readonly skipped = new Map<string, number>();
  private held = 0;
  private readonly heldByPeer = new Map<string, number>();
  readonly counters = { completed: 0, dropped: 0 };

  constructor(
    private readonly limits: ReassemblyLimits = DEFAULT_REASSEMBLY_LIMITS,
    private readonly now: () => number = Date.now,
    private readonly onDrop: (reason: DropReason, f: { source: string; set: number; total: number }) => void = () => undefined,
  ) {}

  /** Bytes held for incomplete messages. */
  get heldBytes(): number {
    return this.held;
  }

  get openSets(): number {
    return this.open.size;
  }

  /** Takes a frame that came in on subscription `via`; returns the whole message once its last frame is in. */
  take(via: string, f: ChunkFrame): Uint8Array | undefined {
    this.sweep();
    const key = `${via}|${f.source}`;
    if (this.skipped.get(key) === f.set) return undefined;
    let s = this.open.get(key);
    if (s && s.set !== f.set) {
      // the sender went on to its next message: the frames this one still lacked were lost
      this.drop(key, s, 'superseded');
      s = undefined;
    }
    if (!s) {
      if (f.offset !== 0) return this.refuse(key, 'frame_lost', f);
      if (f.total > this.limits.maxMessageBytes) return this.refuse(key, 'too_large', f);
      if ((this.heldByPeer.get(f.source) ?? 0) + f.total > this.limits.perPeerBytes) return this.refuse(key, 'peer_limit', f);
      if (this.held + f.total > this.limits.totalBytes) return this.refuse(key, 'total_limit', f);
      s = { source: f.source, set: f.set, buf: Buffer.allocUnsafe(f.total), received: 0, touched: this.now() };
      this.open.set(key, s);
      this.hold(f.source, f.total);
    }
    if (f.offset !== s.received || f.total !== s.buf.length) {
      this.drop(key, s, 'frame_lost');
      return undefined;
    }
    s.buf.set(f.data, f.offset);
    s.received += f.data.length;
    s.touched = this.now();
    if (s.received < s.buf.length) return undefined;
    this.release(key, s);
    this.counters.completed++;
    return s.buf;
  }

  /** Drops incomplete messages whose last frame is older than the timeout. */
  sweep(): void {
    if (!this.open.size) return;
    const old = this.now() - this.limits.timeoutMs;
    for (const [key, s] of this.open) if (s.touched <= old) this.drop(key, s, 'timeout');
  }

  clear(): void {
    for (const [key, s] of this.open) this.release(key, s);
    this.skipped.clear();
  }

  private refuse(key: string, reason: DropReason, f: ChunkFrame): undefined {
    this.skip(key, f.set);
    this.counters.dropped++;
    this.onDrop(reason, f);
    return undefined;
  }

  private drop(key: string, s: OpenSet, reason: DropReason): void {
    this.release(key, s);
    this.skip(key, s.set);
    this.counters.dropped++;
    this.onDrop(reason, { source: s.source, set: s.set, total: s.buf.length });
  }

  private skip(key: string, set: number): void {
    // one entry per sender and subscription; senders that restarted leave theirs behind: start over now and then
    if (this.skipped.size >= 1024) this.skipped.clear();
    this.skipped.set(key, set);
  }

  private hold(source: string, n: number): void {
    this.held += n;
    this.heldByPeer.set(source, (this.heldByPeer.get(source) ?? 0) + n);
  }

  private release(key: string, s: OpenSet): void {
    if (this.open.get(key) !== s) return;
    this.open.delete(key);
    this.held -= s.buf.length;
    const left = (this.heldByPeer.get(s.source) ?? 0) - s.buf.length;
    if (left > 0) this.heldByPeer.set(s.source, left);
    else this.heldByPeer.delete(s.source);
  }
}
