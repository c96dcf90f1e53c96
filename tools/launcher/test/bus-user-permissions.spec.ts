/**
 * The permission shape of a per-client feed user: its own inbox and its own callback objects only, while the shared
 * `client` user keeps hearing every callback object (the single-user case).
 */
import { describe, expect, it } from 'vitest';
import { busPermissions, feedCallbackIdPrefix } from '../src/bus/bus-roles';

describe('per-client feed users', () => {
  it('a named user subscribes to its own inbox and callback objects only', () => {
    const p = busPermissions('client', { user: 'alice' });
    expect(p.subscribe).toEqual(['_INBOX.alice.>', 'esp.obj.coreprocessing::operation_callback.*.*.feed-callback.alice.>']);
    expect(p.subscribe.some((s) => s.includes('bob'))).toBe(false);
  });
  it('the shared client user keeps every callback object', () => {
    expect(busPermissions('client').subscribe).toEqual(['_INBOX.client.>', 'esp.obj.coreprocessing::operation_callback.>']);
  });
  it('a named user publishes what the shared client publishes', () => {
    expect(busPermissions('client', { user: 'alice' }).publish).toEqual(busPermissions('client').publish);
  });
  it('the callback id prefix carries the user as a segment', () => {
    expect(feedCallbackIdPrefix('bob').split('/')).toEqual(['feed-callback', 'bob']);
  });
});
