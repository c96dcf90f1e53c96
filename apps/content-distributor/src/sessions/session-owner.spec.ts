import { SessionNotOwned } from '@esp/interfaces';
import { describe, expect, it } from 'vitest';
import { assertOwner, INTERNAL, ownerHash, ownerOf } from './session-owner';

const TOKEN = 'a'.repeat(43);

describe('session owner', () => {
  it('ownerOf - a client call with a token owns the session by the token\'s SHA-256; without one, or from the distributor, nobody does', () => {
    expect(ownerOf({ token: TOKEN })).toBe(ownerHash(TOKEN));
    expect(ownerOf({ token: TOKEN })).toMatch(/^[0-9a-f]{64}$/);
    expect(ownerOf({ token: TOKEN })).not.toContain(TOKEN);
    expect(ownerOf({})).toBeUndefined();
    expect(ownerOf(INTERNAL)).toBeUndefined();
  });

  it('assertOwner - the creator\'s token passes', () => {
    expect(() => assertOwner(1, ownerHash(TOKEN), { token: TOKEN })).not.toThrow();
  });

  it('assertOwner - another token, no token, or a session opened without one raise session_not_owned', () => {
    const owner = ownerHash(TOKEN);
    for (const [kept, caller] of [
      [owner, { token: 'b'.repeat(43) }],
      [owner, {}],
      [owner, { token: undefined }],
      [undefined, { token: TOKEN }],
      [undefined, {}],
    ] as const) {
      const err = (() => {
        try {
          assertOwner(5, kept, caller);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(SessionNotOwned);
      expect(err).toMatchObject({ code: 'session_not_owned', retryable: false, data: { session: 5 } });
    }
  });

  it('assertOwner - the distributor itself (replica timer, session close, collection removed) needs no token', () => {
    expect(() => assertOwner(1, ownerHash(TOKEN), INTERNAL)).not.toThrow();
    expect(() => assertOwner(1, undefined, INTERNAL)).not.toThrow();
  });
});
