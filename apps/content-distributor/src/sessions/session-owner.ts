import { createHash, timingSafeEqual } from 'node:crypto';
import { SessionNotOwned } from '@esp/interfaces';

/**
 * Whose a session is (docs/decisions/0013-session-ownership.md). The client draws a secret, its owner token, before
 * its first create_session and sends it with every call that opens, re-opens or destroys that id. The distributor
 * keeps the token's SHA-256 with the session and in its SSR artifact, so the proof survives a distributor's death
 * and a replica (or a log of one) does not hold the secret itself.
 */

/** Who is asking for a session: a client call (with its owner token, if it sent one), or this distributor itself. */
export type SessionCaller = { readonly token?: string | undefined; readonly internal?: false } | { readonly internal: true };

/** The distributor itself: a replica timer reactivating a session, a session object closing, a collection removed. */
export const INTERNAL: SessionCaller = { internal: true };

/** What is kept of an owner token: its SHA-256, hex. */
export function ownerHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The owner hash a new session gets from the call that creates it (none: a caller of the spec's signature). */
export function ownerOf(caller: SessionCaller): string | undefined {
  return !caller.internal && caller.token !== undefined ? ownerHash(caller.token) : undefined;
}

/**
 * Throws SessionNotOwned unless the caller opened session `id` (owner: the hash kept with it). A session created
 * without a token has no owner anyone could prove: only the distributor itself may touch it again.
 */
export function assertOwner(id: number, owner: string | undefined, caller: SessionCaller): void {
  if (caller.internal) return;
  if (owner === undefined) throw new SessionNotOwned(`session ${id} exists and was opened without an owner token; it cannot be opened again`, { session: id });
  if (caller.token === undefined) throw new SessionNotOwned(`session ${id} exists; opening it again needs the owner token given when it was created`, { session: id });
  const given = Buffer.from(ownerHash(caller.token), 'hex');
  const kept = Buffer.from(owner, 'hex');
  if (given.length !== kept.length || !timingSafeEqual(given, kept)) throw new SessionNotOwned(`session ${id} exists and belongs to another client`, { session: id });
}
