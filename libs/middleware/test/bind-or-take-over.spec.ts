import { AlreadyBound, type Aor } from '@esp/interfaces';
import { NatsServer } from '@esp/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindOrTakeOver, Middleware, NameContended, NameHeld, serveNameServer } from '../src';
import { objectSubject } from '../src/subjects';
import { echoImpl, echoInterface } from './fixtures/echo-interface';

describe('bindOrTakeOver on a real nats-server with a name server', () => {
  let ns: NatsServer;
  let nsHost: Middleware;
  let mine: Middleware;
  let other: Middleware;
  let raw: NatsConnection;
  let port = 17100;

  beforeAll(async () => {
    ns = await NatsServer.start();
    nsHost = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nsHost);
    mine = await Middleware.connect({ name: 'restarted', servers: ns.url });
    other = await Middleware.connect({ name: 'previous', servers: ns.url });
    raw = await connect({ servers: ns.url });
  });
  afterAll(async () => {
    await raw?.close();
    await other?.close();
    await mine?.close();
    await nsHost?.close();
    await ns?.cleanup();
  });

  const activate = (mw: Middleware, objectId: string) => mw.activate(echoInterface, echoImpl, { object_id: objectId, port: port++ });
  const holderOf = async (name: string): Promise<string> => (await mine.names.resolve(name, echoInterface.type, echoInterface.version)).aor.object_id;

  it('a free name - bound, with the revision of our binding', async () => {
    const obj = await activate(mine, 'free');
    const { revision } = await bindOrTakeOver(mine, echoInterface, 'bot/free', obj.aor);
    const b = await mine.names.resolve('bot/free', echoInterface.type, echoInterface.version);
    expect(b.revision).toBe(revision);
    expect(b.aor.object_id).toBe('free');
  });

  it('a binding whose object is gone (its process killed -9) - taken over', async () => {
    const old = await activate(other, 'old');
    await other.names.bind('bot/stale', old.aor);
    await other.deactivate(old); // the binding stays, nobody serves it: object_not_exist
    const obj = await activate(mine, 'new');
    await bindOrTakeOver(mine, echoInterface, 'bot/stale', obj.aor);
    expect(await holderOf('bot/stale')).toBe('new');
  });

  it('attempts spent while the binding changed (here: after our unbind of the stale one) - NameContended', async () => {
    const old = await activate(other, 'old-contended');
    await other.names.bind('bot/contended', old.aor);
    await other.deactivate(old);
    const obj = await activate(mine, 'new-contended');
    const err = await bindOrTakeOver(mine, echoInterface, 'bot/contended', obj.aor, { attempts: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NameContended);
    expect(err).toBeInstanceOf(AlreadyBound);
    expect(await mine.names.list('bot/contended')).toEqual([]);
  });

  it('a stale binding at another version of the interface - taken over too', async () => {
    const old = await activate(other, 'old-version');
    await other.names.bind('bot/version', { ...old.aor, interface_version: '1.0' });
    await other.deactivate(old);
    const obj = await activate(mine, 'new-version');
    await bindOrTakeOver(mine, echoInterface, 'bot/version', obj.aor);
    expect(await holderOf('bot/version')).toBe('new-version');
  });

  it('a live holder keeps the name: NameHeld (an AlreadyBound) with the holder and the hint', async () => {
    const live = await activate(other, 'live');
    await other.names.bind('bot/live', live.aor);
    const obj = await activate(mine, 'second');
    const err = await bindOrTakeOver(mine, echoInterface, 'bot/live', obj.aor, { holderHint: 'is another one running?' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NameHeld);
    expect(err).toBeInstanceOf(AlreadyBound);
    expect((err as NameHeld).holder.object_id).toBe('live');
    expect((err as Error).message).toMatch(/held by a live object live at .*; is another one running\?$/);
    expect(await holderOf('bot/live')).toBe('live');
  });

  it('a holder that does not answer the ping - kept by default, taken over with takeOverUnanswered', async () => {
    // something subscribed at the holder's address that never answers: a stopped process
    const aor: Aor = { name: '', object_id: 'stopped', host: mine.host, port: port++, interface_type: echoInterface.type, interface_version: echoInterface.version };
    const sub = raw.subscribe(objectSubject(aor.interface_type, aor.host, aor.port, aor.object_id));
    await raw.flush();
    await other.names.bind('bot/silent', aor);
    const obj = await activate(mine, 'after-silent');
    const kept = await bindOrTakeOver(mine, echoInterface, 'bot/silent', obj.aor, { pingTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(kept).toBeInstanceOf(NameHeld);
    expect(await holderOf('bot/silent')).toBe('stopped');
    await bindOrTakeOver(mine, echoInterface, 'bot/silent', obj.aor, { pingTimeoutMs: 300, takeOverUnanswered: true });
    expect(await holderOf('bot/silent')).toBe('after-silent');
    sub.unsubscribe();
  });
});
