/**
 * The last lines node schedulers logged to the multinode scheduler (CMD_UM_LOG, 2.2.4.9), kept for inspection in
 * a ring of fixed size: a chatty or misbehaving node cannot grow the scheduler's memory without bound. Every line
 * is also written to the scheduler's own log as it arrives, so what falls out of the ring is not lost.
 *
 *   const log = new BoundedLog<Line>(1000);
 *   log.push(line); log.lines(); // oldest first, at most 1000; log.dropped counts what fell out
 */
export class BoundedLog<T> {
  private readonly ring: T[] = [];
  private next = 0;
  /** Lines pushed out by newer ones. */
  dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`a bounded log holds at least one line, got ${capacity}`);
  }

  get size(): number {
    return this.ring.length;
  }

  push(line: T): void {
    if (this.ring.length < this.capacity) {
      this.ring.push(line);
      return;
    }
    this.ring[this.next] = line;
    this.next = (this.next + 1) % this.capacity;
    this.dropped++;
  }

  /** The lines kept, oldest first. */
  lines(): T[] {
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }
}
