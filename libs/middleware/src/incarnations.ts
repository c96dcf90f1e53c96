/**
 * The server process last seen answering at each address (the incarnation in its replies, wire-envelope.ts), kept
 * by the calling side. A call in flight whose address is later answered by another incarnation went to a process
 * that is gone: no reply will come for it (call-in-flight.ts). Bounded: the oldest addresses are forgotten.
 */
export class Incarnations {
  private readonly seen = new Map<string, string>();

  constructor(private readonly max = 10_000) {}

  note(subject: string, incarnation: string | undefined): void {
    if (incarnation === undefined || this.seen.get(subject) === incarnation) return;
    this.seen.delete(subject);
    this.seen.set(subject, incarnation);
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value as string);
  }

  get(subject: string): string | undefined {
    return this.seen.get(subject);
  }
}
