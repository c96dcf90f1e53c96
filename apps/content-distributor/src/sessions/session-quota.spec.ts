import { InFlightQuotaExceeded, QuotaExceeded, userExceptionFromWire } from '@esp/interfaces';
import { describe, expect, it } from 'vitest';
import { ClientQuota, clientKeyOf, NO_OWNER_KEY } from './client-quota';
import { SessionQuota } from './session-quota';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const refusal = (fn: () => void): QuotaExceeded | InFlightQuotaExceeded => {
  try {
    fn();
  } catch (err) {
    return err as QuotaExceeded | InFlightQuotaExceeded;
  }
  throw new Error('not refused');
};

describe('ClientQuota', () => {
  it('one client at its limit is refused with quota_exceeded naming the resource and the limit; another client still takes', () => {
    const q = new ClientQuota({ perClient: { sessions: 3 }, global: { sessions: 100 } });
    for (let i = 0; i < 3; i++) q.take('a', 'sessions');
    const err = refusal(() => q.take('a', 'sessions'));
    expect(err).toBeInstanceOf(QuotaExceeded);
    expect(err).toMatchObject({ code: 'quota_exceeded', retryable: false, data: { resource: 'sessions', scope: 'client', client: 'a', limit: 3, held: 3 } });
    expect(err.message).toMatch(/client a holds 3 sessions on this content distributor, its most \(--client-max-sessions\)/);
    expect(q.heldBy('a', 'sessions')).toBe(3);
    q.take('b', 'sessions');
    expect(q.total('sessions')).toBe(4);
    expect(q.refusals.get('sessions/client')).toBe(1);
    // the class survives the wire: rebuilt from its code
    expect(userExceptionFromWire('quota_exceeded', err.message, err.data)).toBeInstanceOf(QuotaExceeded);
  });

  it('the global bound refuses everybody once reached, and takes again once something is given back', () => {
    const q = new ClientQuota({ perClient: { sessions: 10 }, global: { sessions: 4 } });
    q.take('a', 'sessions', 2);
    q.take('b', 'sessions', 2);
    expect(refusal(() => q.take('c', 'sessions'))).toMatchObject({ data: { scope: 'global', limit: 4, held: 4 } });
    q.give('a', 'sessions');
    q.take('c', 'sessions');
    expect(q.clients('sessions')).toBe(3);
  });

  it('amounts count (bytes); a refusal takes nothing; give never goes below zero; force takes past the limits', () => {
    const q = new ClientQuota({ perClient: { bytes_in_flight: 1000 }, global: {} });
    q.take('a', 'bytes_in_flight', 900);
    const over = refusal(() => q.take('a', 'bytes_in_flight', 101));
    // bytes in flight come back by themselves: retryable, so that a feed waits rather than fails
    expect(over).toBeInstanceOf(InFlightQuotaExceeded);
    expect(over).toMatchObject({ code: 'in_flight_quota_exceeded', retryable: true, data: { resource: 'bytes_in_flight', requested: 101, held: 900 } });
    expect(userExceptionFromWire(over.code, over.message, over.data)).toBeInstanceOf(InFlightQuotaExceeded);
    expect(q.heldBy('a', 'bytes_in_flight')).toBe(900);
    q.take('a', 'bytes_in_flight', 100);
    q.give('a', 'bytes_in_flight', 5000);
    expect(q.heldBy('a', 'bytes_in_flight')).toBe(0);
    expect(q.total('bytes_in_flight')).toBe(0);
    q.take('a', 'bytes_in_flight', 5000, true);
    expect(q.heldBy('a', 'bytes_in_flight')).toBe(5000);
    // a resource without limits (content bytes, say) is counted, never refused
    q.take('a', 'content_bytes', 1e12);
    expect(q.total('content_bytes')).toBe(1e12);
  });

  it('a client is its owner hash; callers without a token are one client', () => {
    expect(clientKeyOf(undefined)).toBe(NO_OWNER_KEY);
    expect(clientKeyOf(A)).toBe(`owner:${'a'.repeat(16)}`);
    expect(clientKeyOf(A)).not.toBe(clientKeyOf(B));
  });
});

describe('SessionQuota', () => {
  const limits = { perClient: { sessions: 2, bytes_in_flight: 1000 }, global: { sessions: 3 } };

  it('sessions per client: the third of one owner is refused, another owner opens; a released session makes room', () => {
    const q = new SessionQuota(limits);
    q.admit(1, A);
    q.admit(2, A);
    expect(refusal(() => q.admit(3, A)).data).toMatchObject({ scope: 'client', limit: 2 });
    expect(q.clientOf(3)).toBeUndefined();
    q.admit(4, B);
    expect(refusal(() => q.admit(5, B)).data).toMatchObject({ scope: 'global', limit: 3 });
    q.release(1);
    q.admit(3, A);
    // admitted twice (a re-open) counts once
    q.admit(3, A);
    expect(q.quota.heldBy(clientKeyOf(A), 'sessions')).toBe(2);
  });

  it('a reactivated session is admitted past the limits (it already was the client’s)', () => {
    const q = new SessionQuota(limits);
    q.admit(1, A);
    q.admit(2, A);
    q.admit(3, A, true);
    expect(q.quota.heldBy(clientKeyOf(A), 'sessions')).toBe(3);
  });

  it('bytes in flight: taken per batch, given back when processed or lost, all of them when the session goes', () => {
    const q = new SessionQuota(limits);
    q.admit(1, A);
    q.admit(2, A);
    q.takeBatch(1, 0, 99, 400);
    q.takeBatch(2, 0, 99, 400);
    // the same client's other session: over the client's bytes
    expect(refusal(() => q.takeBatch(2, 100, 199, 400)).data).toMatchObject({ resource: 'bytes_in_flight', held: 800 });
    q.settled(1, 0, 99);
    q.takeBatch(2, 100, 199, 400);
    q.lost(2, [150, 120]);
    expect(q.quota.heldBy(clientKeyOf(A), 'bytes_in_flight')).toBe(400);
    // the same batch taken again (sent again after a refusal elsewhere) replaces its first take
    q.takeBatch(2, 0, 99, 400);
    expect(q.quota.heldBy(clientKeyOf(A), 'bytes_in_flight')).toBe(400);
    q.release(2);
    expect(q.quota.heldBy(clientKeyOf(A), 'bytes_in_flight')).toBe(0);
    expect(q.quota.heldBy(clientKeyOf(A), 'sessions')).toBe(1);
    // a session not counted here (no quota when it opened) takes nothing
    q.takeBatch(9, 0, 9, 1e9);
    expect(q.quota.total('bytes_in_flight')).toBe(0);
  });
});
