import { memberKey } from '../membership';
import type { SsrMessage } from '../messages';
import { expatListsFor } from './expat-list';
import type { NodeParts } from './node-parts';

/** The expat lists on the wire (2.13 "find vs create"): sent to every home after each reshape, received into ExpatList. */
export class ExpatExchange {
  constructor(private readonly n: NodeParts) {}

  send(): void {
    const s = this.n.s;
    if (!s.ready) return;
    const lists = expatListsFor(s.view, s.name, [...s.active.values(), ...s.replica.values()], (h) => s.router.home(h));
    for (const { to, items } of lists) s.o.transport.send(to.name, { t: 'expat', from: s.key, to: memberKey(to), viewId: s.view.id, items });
  }

  onExpat(m: Extract<SsrMessage, { t: 'expat' }>): void {
    const s = this.n.s;
    s.expat.received(m.from, m.viewId, m.items, s.view.id);
  }
}
