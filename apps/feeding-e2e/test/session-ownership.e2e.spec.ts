import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { GuaranteeSet, type OperationStatusInfo } from '@esp/codecs';
import { DISPATCHER_NAME, operationCallbackInterface, processingSessionInterface, SessionNotOwned, sessionFactoryInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware, ObjectNotExist } from '@esp/middleware';
import { waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chain } from './chain';

const log = createLogger('e2e', {}, { level: 'warn' });
const doc = (i: number): FeedDocument => ({ id: `own-${i}`, attributes: { title: `owned ${i}`, body: `text of document ${i}`, content_type: 'text/plain' } });
const none = (): GuaranteeSet => new GuaranteeSet({ guarantees: [] });

/**
 * Sessions belong to their client (docs/decisions/0013-session-ownership.md): another client that knows a session's
 * id cannot open it again with its own callback, recreate it or destroy it; the owner's feed goes on and gets every
 * callback. Name server, indexer, one distributor and one item processor as processes on a real nats-server; the
 * attacker is a connection of its own.
 */
describe('session ownership (separate processes)', () => {
  let chain: Chain;
  let attacker: Middleware;
  beforeAll(async () => {
    chain = await Chain.start({ collections: ['own'], processors: 1 });
    attacker = await Middleware.connect({ name: 'attacker', servers: chain.ns.url, logger: createLogger('attacker', {}, { level: 'silent' }) });
  });
  afterAll(async () => {
    await attacker?.close().catch(() => undefined);
    await chain?.stop();
  });

  it('another client cannot take over a session by its id: create_session, create, recreate and destroy_session are refused, the session and its callbacks untouched', async () => {
    const N = 600;
    const victim = await FeedingClient.open({ mw: chain.client, collection: 'own', log, batchSize: 50 });
    for (let i = 0; i < N / 2; i++) await victim.feed(doc(i));
    // the attacker knows the id (get_sessions, a log line, a guess) and has a callback object of its own
    const stolen: OperationStatusInfo[] = [];
    const cb = await attacker.activate(
      operationCallbackInterface,
      { callback: (st) => void stolen.push(st), callbacks: (sts) => void stolen.push(...sts) },
      { object_id: 'attacker-callback', port: 0 },
    );
    const { proxy: factory } = await attacker.names.resolveProxy(sessionFactoryInterface, DISPATCHER_NAME);
    const sid = victim.sessionId;
    const attempts: [string, () => Promise<unknown>][] = [
      ['create_session without a token', () => factory.create_session(sid, 'own', cb.aor, none(), 0)],
      ['create_session with a guessed token', () => factory.create_session(sid, 'own', cb.aor, none(), 0, 'g'.repeat(43))],
      ['create', () => factory.create(sid, 'own', none(), 0, true, 'g'.repeat(43))],
      ['recreate without a token', () => factory.recreate(sid, 'own', none(), 0, false)],
      ['recreate with a guessed token', () => factory.recreate(sid, 'own', none(), 0, false, 'g'.repeat(43))],
      ['destroy_session', () => factory.destroy_session(sid)],
    ];
    for (const [what, call] of attempts) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, what).toBeInstanceOf(SessionNotOwned);
      expect(err, what).toMatchObject({ code: 'session_not_owned', retryable: false });
    }
    for (let i = N / 2; i < N; i++) await victim.feed(doc(i));
    const { stats, outcomes, unfinished } = await victim.drain(120_000);
    expect(unfinished).toEqual([]);
    // every final came to the owner's callback (a failover would have shown that the session went away)
    expect(stats).toMatchObject({ submitted: N, completed: N, secured: N, failed: 0, lost: 0, duplicateFinals: 0, failovers: 0 });
    expect(outcomes.size).toBe(N);
    await waitFor(() => chain.distributor.logs.filter((l) => l['msg'] === 'session call refused: the caller is not its owner' && l['session'] === sid).length >= attempts.length, {
      what: 'each refusal logged by the distributor',
      timeoutMs: 5000,
    });
    // nothing ever reached the attacker
    await new Promise((r) => setTimeout(r, 500));
    expect(stolen).toEqual([]);
    await victim.close();
    await attacker.deactivate(cb);
  });

  it('the owner opens its session again with its token (same session; a new callback of its own is taken); the session object is reached by its proxy only; a session opened without a token cannot be opened again', async () => {
    const { proxy: factory } = await chain.client.names.resolveProxy(sessionFactoryInterface, DISPATCHER_NAME);
    const token = 'owner-token-of-session-77001';
    const first = await chain.client.activate(operationCallbackInterface, { callback: () => undefined, callbacks: () => undefined }, { object_id: 'own-cb-1', port: 0 });
    const second = await chain.client.activate(operationCallbackInterface, { callback: () => undefined, callbacks: () => undefined }, { object_id: 'own-cb-2', port: 0 });
    const aor = await factory.create_session(77_001, 'own', first.aor, none(), 0, token);
    // the session object's id cannot be made up from the session's id: only the owner's proxy reaches it
    expect(aor.object_id).toMatch(/^session_0_77001_[A-Za-z0-9_-]{16}$/);
    const guessed = attacker.proxy(processingSessionInterface, { ...aor, object_id: 'session_0_77001' }, { timeoutMs: 2000 });
    await expect(guessed.accepted_op_id()).rejects.toBeInstanceOf(ObjectNotExist);
    await expect(guessed.close()).rejects.toBeInstanceOf(ObjectNotExist);
    expect(await attacker.proxy(processingSessionInterface, aor, { timeoutMs: 2000 }).accepted_op_id()).toBe(-1);
    expect(await factory.create_session(77_001, 'own', second.aor, none(), 0, token)).toEqual(aor);
    expect(await factory.recreate(77_001, 'own', none(), 0, false, token)).toEqual(aor);
    await expect(factory.create_session(77_001, 'own', first.aor, none(), 0, `${token}-not`)).rejects.toBeInstanceOf(SessionNotOwned);
    await factory.destroy_session(77_001, token);
    // without a token (a caller of the spec's signature): created, but nobody can prove it is theirs afterwards
    await factory.create_session(77_002, 'own', first.aor, none(), 0);
    await expect(factory.create_session(77_002, 'own', first.aor, none(), 0)).rejects.toBeInstanceOf(SessionNotOwned);
    await expect(factory.destroy_session(77_002)).rejects.toBeInstanceOf(SessionNotOwned);
    await chain.client.deactivate(first);
    await chain.client.deactivate(second);
  });
});
