/**
 * Per-client feed users on a real nats-server: alice hears her own inbox and callback objects, and the server
 * refuses her bob's (permissions violation); the shared `client` user still hears every callback object.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedCallbackIdPrefix } from '../src/bus/bus-roles';
import { trySubscribe } from './bus-probes';
import { SecuredBus } from './secured-bus';

/** A callback object's subject: each '/'-separated segment of its id is a token. */
const callback = (id: string): string => `esp.obj.coreprocessing::operation_callback.somehost.16000.${id.split('/').join('.')}`;
const callbackOf = (user: string): string => callback(`${feedCallbackIdPrefix(user)}/x1`);

describe('per-client feed users', () => {
  let bus: SecuredBus;
  beforeAll(async () => {
    bus = await SecuredBus.start();
  });
  afterAll(async () => {
    await bus?.stop();
  });

  it("alice subscribes to her own callback objects and inbox, and is refused bob's", async () => {
    const alice = await bus.connect('client', { user: 'alice' });
    expect(await trySubscribe(alice, callbackOf('alice'))).toBe('allowed');
    expect(await trySubscribe(alice, '_INBOX.alice.abc.1')).toBe('allowed');
    expect(await trySubscribe(alice, callbackOf('bob'))).toBe('denied');
    expect(await trySubscribe(alice, '_INBOX.bob.abc.1')).toBe('denied');
    expect(await trySubscribe(alice, callback('feed-callback-123'))).toBe('denied');
  });

  it('the shared client user still subscribes to any callback object', async () => {
    const client = await bus.connect('client');
    expect(await trySubscribe(client, callbackOf('alice'))).toBe('allowed');
    expect(await trySubscribe(client, callback('feed-callback-123'))).toBe('allowed');
  });
});
