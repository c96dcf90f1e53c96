import { SystemResourceError } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { ConfigServiceCollections, fixedCollections } from './collection-holder';

const log = createLogger('test', {}, { level: 'silent' });

function holder(lists: (string[] | Error)[], always?: string[]) {
  const clock = new ManualClock(1_000);
  let calls = 0;
  const h = new ConfigServiceCollections({
    fetch: async () => {
      const next = lists[Math.min(calls++, lists.length - 1)];
      if (next instanceof Error) throw next;
      return next as string[];
    },
    always,
    maxAgeMs: 10_000,
    clock,
    log,
  });
  return { h, clock, calls: () => calls };
}

describe('collection holder', () => {
  it('fixed: exactly the listed collections', async () => {
    const h = fixedCollections(['a', 'b']);
    expect(await h.has('a')).toBe(true);
    expect(await h.has('c')).toBe(false);
    expect(h.names()).toEqual(['a', 'b']);
  });

  it('config service - a collection added on the config server is accepted by the next lookup (no waiting for a poll)', async () => {
    const { h, calls } = holder([['default'], ['default', 'news']]);
    expect(await h.has('default')).toBe(true);
    expect(calls()).toBe(1);
    expect(await h.has('default')).toBe(true); // fresh: no call
    expect(calls()).toBe(1);
    expect(await h.has('news')).toBe(true); // unknown: asked again at once
    expect(calls()).toBe(2);
    expect(h.names()).toEqual(['default', 'news']);
  });

  it('config service - a removed collection is refused once the list is older than maxAgeMs', async () => {
    const { h, clock } = holder([['default', 'old'], ['default']]);
    expect(await h.has('old')).toBe(true);
    clock.advance(5_000);
    expect(await h.has('old')).toBe(true); // still fresh
    clock.advance(5_001);
    expect(await h.has('old')).toBe(false);
    expect(await h.has('nothere')).toBe(false);
  });

  it('config service - lookups in a burst share one call', async () => {
    const { h, calls } = holder([['a']]);
    const r = await Promise.all([h.has('a'), h.has('x'), h.has('y'), h.has('a')]);
    expect(r).toEqual([true, false, false, true]);
    expect(calls()).toBeLessThanOrEqual(2);
  });

  it('config service - while it does not answer: the last list stays, anything else is system_resource_error (retryable), not unknown', async () => {
    const { h, clock } = holder([['default'], new Error('no responders')]);
    expect(await h.has('default')).toBe(true);
    clock.advance(20_000);
    expect(await h.has('default')).toBe(true);
    const err = await h.has('news').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SystemResourceError);
    expect((err as SystemResourceError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/config server does not answer.*no responders/);
  });

  it('config service - "always" collections (--collections as well) need no config server', async () => {
    const { h, calls } = holder([new Error('down')], ['fixed']);
    expect(await h.has('fixed')).toBe(true);
    expect(calls()).toBe(0);
    await expect(h.has('other')).rejects.toBeInstanceOf(SystemResourceError);
  });
});
