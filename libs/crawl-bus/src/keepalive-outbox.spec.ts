import { describe, expect, it } from 'vitest';
import { KeepaliveOutbox } from './keepalive-outbox';

describe('keep-alive outbox', () => {
  it('a keep-alive ack confirms what was sent before the previous keep-alive (one round late), acks matched in order', () => {
    const o = new KeepaliveOutbox<string>();
    o.add('a');
    o.add('b');
    o.keepaliveSent(); // k1 covers nothing (sent in the same turn as a and b, it may overtake them)
    o.add('c');
    o.keepaliveSent(); // k2 covers a, b
    o.keepaliveSent(); // k3 covers c
    o.ackReceived(); // k1
    expect(o.size).toBe(3);
    expect(o.ackReceived()).toEqual(['a', 'b']); // k2
    expect(o.resendPreview()).toEqual(['c']);
    o.ackReceived(); // k3
    expect(o.size).toBe(0);
    o.ackReceived(); // an ack nobody waits for confirms nothing
    expect(o.size).toBe(0);
  });

  it('resend: everything unconfirmed, counted as sent now; acks of earlier keep-alives no longer confirm it', () => {
    const o = new KeepaliveOutbox<string>();
    o.add('a');
    o.keepaliveSent();
    o.add('b');
    o.keepaliveSent(); // covers a
    expect(o.resend()).toEqual(['a', 'b']);
    o.keepaliveSent(); // same turn as the resend: covers nothing of it
    o.ackReceived();
    expect(o.size).toBe(2);
    o.keepaliveSent(); // a later round covers the resent items
    o.ackReceived();
    expect(o.size).toBe(0);
  });

  it('is bounded: the oldest items go first and are counted', () => {
    const o = new KeepaliveOutbox<number>(3);
    const dropped = [0, 1, 2, 3, 4].map((i) => o.add(i));
    expect(dropped).toEqual([undefined, undefined, undefined, 0, 1]);
    expect(o.resend()).toEqual([2, 3, 4]);
    expect(o.dropped).toBe(2);
  });

  it('takeAll empties it, and acks of earlier keep-alives then confirm nothing', () => {
    const o = new KeepaliveOutbox<string>();
    o.add('a');
    o.keepaliveSent();
    o.keepaliveSent();
    expect(o.takeAll()).toEqual(['a']);
    expect(o.ackReceived()).toEqual([]);
    expect(o.size).toBe(0);
  });
});
