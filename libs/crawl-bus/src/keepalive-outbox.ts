/**
 * What one crawl peer sent another that the other has not vouched for yet, to send again when the link may have
 * lost it (a node scheduler's links to the multinode scheduler; the scheduler's entries handed out to a node): on
 * NATS a message to a peer that is down, or held by a nats-server that restarts, is dropped without a word, and
 * CMD_UM_URI has no answer of its own.
 *
 *   outbox.add(item);          // a CMD_UM_URI left
 *   outbox.keepaliveSent();    // a CMD_UM_KEEPALIVE left
 *   const done = outbox.ackReceived();   // its CMD_UM_KEEPALIVE_ACK came: older items are confirmed (returned)
 *   for (const i of outbox.resend()) send(i);   // after the peer registered again, or the link was broken
 *
 * The confirmation is the keep-alive round trip: a peer handles (a scheduler with a data directory: commits) the
 * messages of a batch before it answers, and messages between two peers arrive in order, so its KEEPALIVE_ACK vouches
 * for what reached it before the keep-alive. It is taken one round late: the ack of a keep-alive confirms the items sent before the
 * previous keep-alive, because a keep-alive (priority 1) overtakes the items queued in the same event-loop turn and
 * a large turn can be split over several NATS messages; the previous keep-alive left at least one timer tick
 * earlier, so everything before it is in messages that arrived ahead of this one. Acks are matched to keep-alives
 * first-in first-out (the scheduler answers each in order); a lost ack only delays confirmation.
 */
export const DEFAULT_MAX_OUTBOX = 100_000;
/** Keep-alives remembered while unanswered; beyond this none is recorded (an ack then confirms less, never more). */
const MAX_MARKS = 64;

export class KeepaliveOutbox<T> {
  private items: Array<{ seq: number; item: T }> = [];
  private seq = 0;
  /** seq covered by each unanswered keep-alive, oldest first. */
  private readonly marks: number[] = [];
  private seqAtLastKeepalive = 0;
  /** Items dropped because the outbox was full (the oldest go first). */
  dropped = 0;

  constructor(private readonly maxItems = DEFAULT_MAX_OUTBOX) {}

  get size(): number {
    return this.items.length;
  }

  /** Returns the oldest item when the outbox was full: it is no longer covered (the caller decides what that means). */
  add(item: T): T | undefined {
    this.items.push({ seq: ++this.seq, item });
    if (this.items.length <= this.maxItems) return undefined;
    this.dropped++;
    return this.items.shift()?.item;
  }

  keepaliveSent(): void {
    if (this.marks.length < MAX_MARKS) this.marks.push(this.seqAtLastKeepalive);
    this.seqAtLastKeepalive = this.seq;
  }

  /** The items this ack confirms, oldest first (gone from the outbox). */
  ackReceived(): T[] {
    const upTo = this.marks.shift();
    if (upTo === undefined) return [];
    let i = 0;
    while (i < this.items.length && (this.items[i] as { seq: number }).seq <= upTo) i++;
    return i > 0 ? this.items.splice(0, i).map((x) => x.item) : [];
  }

  /** Everything unconfirmed, oldest first, gone from the outbox (the peer left for good). */
  takeAll(): T[] {
    this.marks.length = 0;
    return this.items.splice(0).map((x) => x.item);
  }

  /** The unconfirmed items, oldest first (nothing changes). */
  resendPreview(): T[] {
    return this.items.map((i) => i.item);
  }

  /**
   * Everything not confirmed, to send again after registering anew. The items count as sent now (a keep-alive in
   * the same turn does not cover them), and keep-alives sent before no longer confirm anything.
   */
  resend(): T[] {
    this.marks.length = 0;
    this.seqAtLastKeepalive = this.seq;
    for (const i of this.items) i.seq = ++this.seq;
    return this.items.map((i) => i.item);
  }
}
