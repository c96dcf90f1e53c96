import type { Aor } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { describe, expect, it } from 'vitest';
import { FeedingSession } from './feeding-session';
import { guaranteesOf } from './session-artifact';

const session = (priority: number | undefined) =>
  new FeedingSession({
    id: 3,
    collection: 'news',
    coreSession: {} as Aor,
    object: {} as never,
    callback: undefined,
    callbacks: undefined,
    owner: undefined,
    guarantees: { priority },
    lastAcceptedOpId: -1,
    completedOpId: 0,
    store: undefined,
    log: createLogger('t', {}, { level: 'silent' }),
  });

describe('FeedingSession', () => {
  it('its artifact keeps the feeding priority it was created with (MS-FSCDFT 3.5.4.1), not an empty guarantee list', () => {
    expect(session(0).artifact().guarantees).toEqual(['feeding_priority=0']);
    expect(guaranteesOf(session(0).artifact().guarantees)).toEqual({ priority: 0 });
    expect(session(undefined).artifact().guarantees).toEqual([]);
  });
});
