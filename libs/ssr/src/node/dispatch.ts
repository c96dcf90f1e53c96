import type { SsrMessage } from '../messages';
import type { NodeParts } from './node-parts';

/** Every message from the transport to the part that handles it. */
export function dispatch(n: NodeParts, m: SsrMessage): void {
  const s = n.s;
  if (s.stopped) return;
  if (m.t === 'hb') {
    n.views.handle(s.membership.heard(m.from, m.state, s.clock.now()));
    return;
  }
  if (m.from === s.key) return;
  if (m.t !== 'load' && m.to !== s.key) return; // for an earlier incarnation of this instance
  switch (m.t) {
    case 'rep':
      return n.replication.onReplicate(m);
    case 'rm':
      return n.replication.onRemove(m);
    case 'slot':
      return n.replication.onSlot(m);
    case 'ack':
      return n.replication.onAck(m);
    case 'purge':
      return n.replication.onPurge(m);
    case 'pull':
      return n.replication.onPull(m);
    case 'load':
      return n.answers.onLoad(m);
    case 'loadr':
      return n.loads.onLoadReply(m);
    case 'commit':
      return n.answers.onCommit(m);
    case 'expat':
      return n.expat.onExpat(m);
    case 'adv':
      return n.timers.onAdvisory(m);
    case 'vlist':
      return n.repair.onVersionList(m);
    case 'rejoined':
      return n.repair.onRejoined(m);
    case 'advr':
    case 'vlistr':
      s.rpcs.get(m.req)?.(m);
      return;
  }
}
