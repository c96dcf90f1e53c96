/**
 * Keep-alive rounds to the node schedulers (beyond 3.2.6, which only logs): a node that leaves `maxMissedKeepalives`
 * rounds in a row unanswered is dropped; one that missed a round, or every node after our own NATS connection came
 * back, is sent again what it has not vouched for. While our connection is down nobody is dropped: the unanswered
 * rounds are our outage, not the nodes'.
 */
import type { Logger } from '@esp/logging';
import type { Clock, TimerHandle } from '@esp/timers';
import type { NodeRegistry } from './node-registry';
import type { NodeSend } from './node-send';

export const DEFAULT_KEEPALIVE_MS = 120_000;
/** Keep-alive rounds left unanswered in a row after which a node scheduler counts as dead and is dropped. */
export const DEFAULT_MAX_MISSED_KEEPALIVES = 3;

export interface NodeLivenessDeps {
  clock: Clock;
  nodes: NodeRegistry;
  send: NodeSend;
  /** Drops a dead node (its routes, permissions and work go back to the live ones). */
  drop: (address: string, reason: string) => void;
  /** Runs after every round (routing also ends the route waits that timed out then). */
  afterRound: () => void;
  keepaliveMs?: number;
  maxMissedKeepalives?: number;
  log?: Logger;
}

export class NodeLiveness {
  private timer: TimerHandle | undefined;
  /** Our NATS connection came back since the last round: every node gets again what it has not vouched for. */
  private resendDue = false;
  private busDown = false;

  constructor(private readonly deps: NodeLivenessDeps) {}

  start(): void {
    const every = this.deps.keepaliveMs ?? DEFAULT_KEEPALIVE_MS;
    const tick = (): void => {
      this.round();
      this.timer = this.deps.clock.setTimeout(tick, every);
    };
    this.timer = this.deps.clock.setTimeout(tick, every);
  }

  stop(): void {
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
  }

  busReconnected(): void {
    this.resendDue = true;
    this.busDown = false;
    for (const n of this.deps.nodes.values()) n.missed = 0;
  }

  busDisconnected(): void {
    this.busDown = true;
  }

  private round(): void {
    const reconnected = this.resendDue;
    this.resendDue = false;
    const maxMissed = this.deps.maxMissedKeepalives ?? DEFAULT_MAX_MISSED_KEEPALIVES;
    for (const n of [...this.deps.nodes.values()]) {
      if (n.missed >= maxMissed && !this.busDown) {
        this.deps.drop(n.address, `${n.missed} keep-alives unanswered`);
        continue;
      }
      if (n.missed > 0) this.deps.log?.warn({ node: n.id, missed: n.missed }, 'no CMD_UM_KEEPALIVE_ACK since the previous keep-alive');
      // the entries it may not have got: a keep-alive round unanswered, or our own link to NATS was broken (an
      // outage shorter than a round is answered in time, yet what the old nats-server held for the node is gone)
      if (n.missed > 0 || reconnected) this.deps.nodes.resendHanded(n);
      n.missed++;
      n.handed.keepaliveSent();
      this.deps.send(n.address, { command: 'CMD_UM_KEEPALIVE' }, 1);
    }
    this.deps.afterRound();
  }
}
