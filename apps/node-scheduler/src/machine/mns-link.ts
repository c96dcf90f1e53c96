/**
 * The node scheduler's link to the multinode scheduler: every message goes out here, keep-alive rounds are counted,
 * and links forwarded for routing wait in an outbox until a keep-alive answer vouches for them. A round unanswered,
 * or a reconnect of our own NATS connection, sends again what the scheduler may have lost; two rounds unanswered
 * register anew first (the scheduler may have restarted and forgotten us: there is no connection to see drop).
 */
import { buildFscmtMultinodeSchedulerMessage, type FscmtMultinodeSchedulerMessage, type FscmtPriority, type FscmtQueueEntry, type FswcuDict } from '@esp/codecs';
import { KeepaliveOutbox } from '@esp/crawl-bus';
import type { Logger } from '@esp/logging';
import type { NodeStore } from '../store/node-store';
import { depthOf } from './queue-entries';
import { siteOf } from './sites';

export interface MnsLinkDeps {
  nodeId: string;
  /** The multinode scheduler's address. */
  mns: string;
  send: (to: string, dict: FswcuDict, priority: FscmtPriority) => void;
  xmlrpc?: { host: string; port: number };
  /** Sends again the DNS and crawl-permission requests still unanswered; how many. */
  resendRequests: () => number;
  /** Forwarded links are written here until vouched for: a restarted node sends again those that were not. */
  store: NodeStore;
  log?: Logger;
}

export class MnsLink {
  private missed = 0;
  /** The bus reconnected since the last keep-alive tick: what was in the dead server's buffers is gone. */
  private resendDue = false;
  /** Links forwarded to the multinode scheduler that it has not vouched for (sent again on registering anew). */
  private readonly outbox = new KeepaliveOutbox<{ collection: string; entry: FscmtQueueEntry }>();

  constructor(private readonly deps: MnsLinkDeps) {}

  send(message: FscmtMultinodeSchedulerMessage, priority: FscmtPriority = 0): void {
    this.deps.send(this.deps.mns, buildFscmtMultinodeSchedulerMessage(message), priority);
  }

  init(priority?: FscmtPriority): void {
    this.send({ command: 'CMD_UM_INIT', nodeId: this.deps.nodeId, xmlrpc: this.deps.xmlrpc ?? { host: '127.0.0.1', port: 0 } }, priority);
  }

  /** A link for the multinode scheduler to route: kept until a keep-alive answer vouches for it. */
  forward(collection: string, entry: FscmtQueueEntry): void {
    this.deps.store.forwarded(collection, siteOf(entry.uri.uri)?.site ?? '', entry, depthOf(entry));
    this.send({ command: 'CMD_UM_URI', dspecName: collection, entry });
    this.outbox.add({ collection, entry });
  }

  keepaliveRound(): void {
    if (this.missed > 0) this.deps.log?.warn({ missed: this.missed }, 'no CMD_UM_KEEPALIVE_ACK from the multinode scheduler');
    // a round unanswered: what went since the last confirmation may be lost (a scheduler or NATS restart); twice:
    // the scheduler may have restarted and forgotten us, so register again first
    // a reconnect of our own NATS connection loses what the old server still held either way, even when the next
    // keep-alive is answered (a short outage fits between two ticks): requests and answers lost then would leave a
    // site waiting for a permission for ever
    if (this.missed >= 1 || this.resendDue) this.sendAgain(this.missed >= 2);
    this.resendDue = false;
    this.missed++;
    this.send({ command: 'CMD_UM_KEEPALIVE' }, 1);
    this.outbox.keepaliveSent();
  }

  acked(): void {
    this.missed = 0;
    const confirmed = this.outbox.ackReceived();
    if (confirmed.length === 0) return;
    const byCollection = new Map<string, string[]>();
    for (const { collection, entry } of confirmed) {
      const uris = byCollection.get(collection) ?? [];
      uris.push(entry.uri.uri);
      byCollection.set(collection, uris);
    }
    for (const [collection, uris] of byCollection) this.deps.store.forwardsConfirmed(collection, uris);
  }

  busReconnected(): void {
    this.resendDue = true;
  }

  /**
   * (CMD_UM_INIT again, when `init`), then whatever the scheduler may have lost: the links forwarded since its last
   * confirmed keep-alive, and the DNS and crawl-permission requests still unanswered (a site waiting for one would
   * wait for ever). Duplicates are harmless: the routed node drops a URI it has seen, and a permission already held
   * is granted again.
   */
  private sendAgain(init: boolean): void {
    if (init) this.init(1);
    const again = this.outbox.resend();
    for (const { collection, entry } of again) this.send({ command: 'CMD_UM_URI', dspecName: collection, entry });
    const asked = this.deps.resendRequests();
    if (init || again.length > 0 || asked > 0) {
      this.deps.log?.info({ init, links: again.length, requests: asked, dropped: this.outbox.dropped }, 'sent again what the multinode scheduler may have missed');
    }
  }
}
