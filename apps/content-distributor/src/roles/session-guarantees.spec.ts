import { FeedingPriority, Guarantee, GuaranteeSet } from '@esp/codecs';
import { UnsupportedGuaranteeSet, type Aor } from '@esp/interfaces';
import { describe, expect, it } from 'vitest';
import type { SessionPlacement } from '../master/session-placement';
import type { SessionDirectory } from '../sessions/session-directory';
import type { SessionHost } from '../sessions/session-host';
import { dispatcherNode } from './dispatcher-node';
import { sessionFactory } from './session-factory';

const aor = { name: '', object_id: 'x', host: 'h', port: 1, interface_type: 't', interface_version: '1' } as Aor;
const unsupported = [new GuaranteeSet({ guarantees: [new Guarantee()] }), new GuaranteeSet({ guarantees: [new FeedingPriority(), new FeedingPriority()] })];
const priority = new GuaranteeSet({ guarantees: [new FeedingPriority({ priority: 0 })] });

describe('session guarantees (MS-FSCDFT 3.5.4.1-3.5.4.3)', () => {
  it('dispatcher_node: an unsupported set raises unsupported_guarantee_set and opens nothing; a feeding priority goes to the session', async () => {
    const opened: unknown[] = [];
    const host = { open: async (...args: unknown[]) => (opened.push(args[4]), aor) } as unknown as SessionHost;
    const node = dispatcherNode(host, {} as SessionDirectory, () => 0);
    for (const g of unsupported) {
      await expect(node.create_session(1, 'c', aor, g, 0, undefined)).rejects.toBeInstanceOf(UnsupportedGuaranteeSet);
      await expect(node.create(1, 'c', g, 0, false, undefined)).rejects.toBeInstanceOf(UnsupportedGuaranteeSet);
      await expect(node.recreate(1, 'c', g, 0, false, undefined)).rejects.toBeInstanceOf(UnsupportedGuaranteeSet);
    }
    expect(opened).toEqual([]);
    await node.create_session(1, 'c', aor, priority, 0, undefined);
    await node.recreate(1, 'c', new GuaranteeSet({ guarantees: [] }), 0, false, undefined);
    expect(opened).toEqual([expect.objectContaining({ guarantees: { priority: 0 } }), expect.objectContaining({ guarantees: { priority: undefined }, recreate: true })]);
  });

  it('session_factory: the master refuses an unsupported set before forwarding it', async () => {
    let forwarded = 0;
    const placement = { forward: async () => (forwarded++, aor) } as unknown as SessionPlacement;
    const f = sessionFactory(placement);
    for (const g of unsupported) await expect(f.create_session(1, 'c', aor, g, 0, undefined)).rejects.toMatchObject({ code: 'unsupported_guarantee_set' });
    expect(forwarded).toBe(0);
    await f.create_session(1, 'c', aor, priority, 0, undefined);
    expect(forwarded).toBe(1);
  });
});
