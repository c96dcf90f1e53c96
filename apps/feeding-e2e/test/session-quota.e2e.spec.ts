import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { GuaranteeSet } from '@esp/codecs';
import { DISPATCHER_NAME, INDEX_SEARCH_NAME, operationCallbackInterface, QuotaExceeded, searchInterface, sessionFactoryInterface, type Aor, type ProxyOf } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NpmStartStack } from './npm-start-stack';

const log = createLogger('quota-e2e', {}, { level: 'warn' });
const none = (): GuaranteeSet => new GuaranteeSet({ guarantees: [] });
/** Per client, per content distributor (`--client-max-sessions`), and the idle time (`--session-idle-ms`). */
const QUOTA = 20;
const IDLE_MS = 15_000;
const ENV = { ESP_CLIENT_MAX_SESSIONS: String(QUOTA), ESP_SESSION_IDLE_MS: String(IDLE_MS), ESP_CALLBACK_GIVE_UP_MS: String(IDLE_MS), LOG_LEVEL: 'info' };
const REAPED_CD = 'session reaped: no call and no callback taken for the idle time';
const REAPED_IX = 'session reaped: no open, no batch and no callback delivered for the idle time (journal rows deleted)';
const doc = (i: number): FeedDocument => ({ id: `q-${i}`, attributes: { title: `doc ${i}`, body: `quota feed ${i}`, content_type: 'text/plain' } });

type Factory = ProxyOf<typeof sessionFactoryInterface>;

/** create_session of a new id: the session's AOR, or the error it raised. */
const create = (factory: Factory, id: number, cb: Aor, token: string | undefined): Promise<Aor | Error> =>
  factory.create_session(id, 'default', cb, none(), 0, token).then(
    (aor) => aor,
    (err: unknown) => err as Error,
  );

/**
 * Quotas and reaping on the stack of `npm start` (its secured bus: every connection here holds the `client`
 * identity of the home, as every feed client does), with 20 sessions per client and a 15 s idle time. One client
 * that floods create_session is refused at its quota with quota_exceeded while another client's 20,000 documents
 * complete; abandoned sessions are reaped after the idle time, across a full restart of the stack, journal included.
 */
describe('quotas and reaping (stack of npm start, secured bus, separate processes)', () => {
  let home: string;
  let stack: NpmStartStack;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'esp-quota-'));
    stack = await NpmStartStack.start(home, ENV);
  }, 300_000);
  afterAll(async () => {
    await stack?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 120_000);

  it('one client flooding create_session is refused at its quota with quota_exceeded, and so are callers without a token, while a second client feeds 20,000 documents to the end', async () => {
    const flooder = await stack.connect('client', 'flooder');
    const cb = await flooder.activate(operationCallbackInterface, { callback: () => undefined, callbacks: () => undefined }, { object_id: 'flood-callback', port: 0 });
    const { proxy: factory } = await flooder.names.resolveProxy(sessionFactoryInterface, DISPATCHER_NAME);
    const token = randomBytes(32).toString('base64url');
    const created: number[] = [];
    let refusal: Error | undefined;
    let refusedInARow = 0;
    let id = 900_000;
    // to its quota: each of the two distributors takes at most QUOTA of one client (all go to the master when only it has processors)
    while (refusedInARow < 50 && id < 900_500) {
      const r = await create(factory, ++id, cb.aor, token);
      if (r instanceof Error) {
        expect(r, r.message).toBeInstanceOf(QuotaExceeded);
        refusal ??= r;
        refusedInARow++;
      } else {
        created.push(id);
        refusedInARow = 0;
      }
    }
    expect(refusedInARow).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(QUOTA);
    expect(created.length).toBeLessThanOrEqual(2 * QUOTA);
    expect(refusal).toMatchObject({ code: 'quota_exceeded', retryable: false, data: { resource: 'sessions', scope: 'client', limit: QUOTA, held: QUOTA } });
    const firstFlood = created.length;
    expect(refusal?.message).toMatch(/holds 20 sessions on this content distributor, its most \(--client-max-sessions\)/);

    // callers of the spec's signature (no owner token) are one client together
    let anonymous = 0;
    let anonymousRefused = 0;
    for (let i = 0; i < 2 * QUOTA + 10; i++) {
      const r = await create(factory, 950_000 + i, cb.aor, undefined);
      if (r instanceof QuotaExceeded) {
        expect(r.data).toMatchObject({ client: 'no-owner-token', scope: 'client' });
        anonymousRefused++;
      } else if (r instanceof Error) throw r;
      else anonymous++;
    }
    expect(anonymous).toBeLessThanOrEqual(2 * QUOTA);
    expect(anonymousRefused).toBeGreaterThanOrEqual(10);

    // the flood goes on while another client feeds; every call of it past the quota is refused
    const feederMw = await stack.connect('client', 'feeder');
    const N = 20_000;
    const t0 = performance.now();
    const feeder = await FeedingClient.open({ mw: feederMw, collection: 'default', log });
    let flooding = true;
    let floodRefused = 0;
    let floodOther = 0;
    const flood = (async () => {
      while (flooding) {
        const r = await create(factory, ++id, cb.aor, token);
        if (r instanceof QuotaExceeded) floodRefused++;
        else if (r instanceof Error) floodOther++;
        // the flood's first sessions may be reaped while the feed runs: their places are taken again
        else created.push(id);
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    for (let i = 0; i < N; i++) await feeder.feed(doc(i));
    const { stats, unfinished } = await feeder.drain(240_000);
    flooding = false;
    await flood;
    const feedMs = Math.round(performance.now() - t0);
    process.stdout.write(`quota e2e: ${firstFlood} flood sessions, then refused; ${N} documents fed in ${feedMs} ms while the flood was refused ${floodRefused} times\n`);
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ submitted: N, completed: N, failed: 0, lost: 0 });
    expect(floodRefused).toBeGreaterThan(0);
    expect(floodOther).toBe(0);
    await feeder.close();
    const { proxy: search } = await feederMw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect(await search.count('default')).toBe(N);
    expect(stack.lines('session refused: the client is at its quota', 'content-distributor').length).toBeGreaterThan(0);

    // the flood's sessions (those of the first burst, and those it opened again as the first were reaped) take no
    // callback and make no call: the distributors reap them after the idle time, and close their indexing sessions
    await waitFor(() => created.every((s) => stack.lines(REAPED_CD, 'content-distributor').some((l) => l['session'] === s)), {
      what: 'every flood session reaped by its distributor',
      timeoutMs: IDLE_MS + 30_000,
    });
    // with its sessions gone, the flooder has its quota again
    expect(await create(factory, 990_001, cb.aor, token)).not.toBeInstanceOf(Error);
    await factory.destroy_session(990_001, token);
  }, 420_000);

  it('sessions abandoned by their client are reaped after the idle time across a full restart of the stack, journal included: the next restart restores none of them', async () => {
    const abandoner = await stack.connect('client', 'abandoner');
    // three clients that fed a little and went away without closing, and seven sessions that never fed
    const fed: number[] = [];
    for (let k = 0; k < 3; k++) {
      const c = await FeedingClient.open({ mw: abandoner, collection: 'default', log });
      for (let i = 0; i < 5; i++) await c.feed(doc(100_000 + k * 10 + i));
      await c.flush();
      fed.push(c.sessionId);
    }
    const cb = await abandoner.activate(operationCallbackInterface, { callback: () => undefined, callbacks: () => undefined }, { object_id: 'abandoned-callback', port: 0 });
    const { proxy: factory } = await abandoner.names.resolveProxy(sessionFactoryInterface, DISPATCHER_NAME);
    const token = randomBytes(32).toString('base64url');
    const bare = Array.from({ length: 7 }, (_, i) => 800_001 + i);
    for (const s of bare) expect(await create(factory, s, cb.aor, token)).not.toBeInstanceOf(Error);
    const abandoned = [...fed, ...bare];
    // the client is gone (its callback objects with its connection), and the whole stack restarts at once
    await abandoner.close();
    await stack.stop();
    stack = await NpmStartStack.start(home, ENV);
    const restored = stack.lines('sessions restored from the journal', 'indexer')[0];
    expect(restored?.['ids'], stack.tail()).toEqual(expect.arrayContaining(abandoned));

    // nobody comes back for them: the indexer reaps each after the idle time (and a distributor that reactivated one
    // from its replica reaps it too)
    await waitFor(() => abandoned.every((s) => stack.lines(REAPED_IX, 'indexer').some((l) => l['session'] === s)), {
      what: 'every abandoned session reaped by the indexer',
      timeoutMs: IDLE_MS + 60_000,
    });

    // and the journal has them no more: the next restart brings none back
    await stack.stop();
    stack = await NpmStartStack.start(home, ENV);
    const again = stack.lines('sessions restored from the journal', 'indexer')[0];
    const ids = (again?.['ids'] as number[] | undefined) ?? [];
    expect(ids.filter((s) => abandoned.includes(s))).toEqual([]);
    // the stack feeds as before
    const mw = await stack.connect('client', 'after');
    const c = await FeedingClient.open({ mw, collection: 'default', log });
    for (let i = 0; i < 200; i++) await c.feed(doc(200_000 + i));
    const { stats, unfinished } = await c.drain(120_000);
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: 200, failed: 0, lost: 0 });
    await c.close();
  }, 600_000);
});
