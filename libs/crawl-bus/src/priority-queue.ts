/**
 * A send / receive queue with the two FSCMT priorities (MS-FSCMT 2.2.1): priority 1 goes before every priority 0
 * item, and within a priority the order is kept. High-priority items are kept FIFO among themselves (rather than
 * each one pushed in front of the previous) so that a burst of urgent messages keeps its own order.
 *
 *   const q = new PriorityQueue<Uint8Array>();
 *   q.push(frame, 0); q.push(urgent, 1);
 *   q.shift(); // urgent
 */
export class PriorityQueue<T> {
  private high: T[] = [];
  private highHead = 0;
  private normal: T[] = [];
  private normalHead = 0;

  get length(): number {
    return this.high.length - this.highHead + this.normal.length - this.normalHead;
  }

  push(item: T, priority: 0 | 1): void {
    if (priority === 1) this.high.push(item);
    else this.normal.push(item);
  }

  shift(): T | undefined {
    if (this.highHead < this.high.length) {
      const item = this.high[this.highHead++];
      if (this.highHead > 1024 && this.highHead * 2 > this.high.length) this.compact('high');
      return item;
    }
    if (this.normalHead < this.normal.length) {
      const item = this.normal[this.normalHead++];
      if (this.normalHead > 1024 && this.normalHead * 2 > this.normal.length) this.compact('normal');
      return item;
    }
    return undefined;
  }

  /** Takes everything, high priority first. */
  drain(): T[] {
    const out = this.high.slice(this.highHead).concat(this.normal.slice(this.normalHead));
    this.clear();
    return out;
  }

  clear(): void {
    this.high = [];
    this.normal = [];
    this.highHead = 0;
    this.normalHead = 0;
  }

  private compact(lane: 'high' | 'normal'): void {
    if (lane === 'high') {
      this.high = this.high.slice(this.highHead);
      this.highHead = 0;
    } else {
      this.normal = this.normal.slice(this.normalHead);
      this.normalHead = 0;
    }
  }
}
