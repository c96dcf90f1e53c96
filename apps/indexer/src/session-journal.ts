/**
 * What an indexing session must remember across a restart, in the collection's database next to its documents
 * (so that one transaction covers a batch's writes and its bookkeeping):
 *
 * - sessions: the client's callback AOR, the floor (highest completed_op_id seen: the client has every final below
 *   it), and whether the session was closed with callbacks still owed;
 * - final_ranges: the operation ids at or above the floor already decided final (completed, failed or lost), as
 *   ranges [first, last] of consecutive ids. A later copy of one of them is ignored. Ranges wholly below the floor are
 *   pruned: an id below it is final by the client's own word. Ranges, not a row per id: a batch's ids follow on from
 *   the previous batch's, so the session's last range is extended (one row written per batch, not 100 inserted and
 *   later 100 deleted);
 * - outbox: the statuses decided but not yet acknowledged by the client, in order. They are written in the batch's
 *   transaction and deleted once delivered, so a crash between commit and callback loses nothing (a status may be
 *   delivered twice across a crash; the callback contract lets clients dedupe by operation id). A status written
 *   `held` waits for its documents' full-text entries (the writer's second phase) and is released with them.
 */
import { decodeCheetah, encodeCheetah, OperationStatusInfo } from '@esp/codecs';
import { aorSchema, type Aor } from '@esp/interfaces';
import type { Db } from './collection-store';

export interface SessionRow {
  id: number;
  callback: Aor;
  floor: number;
  closed: boolean;
}

export interface OutboxEntry {
  seq: number;
  session: number;
  status: OperationStatusInfo;
  /** Kept back until the full-text entries of its documents are made (release). */
  held?: boolean;
}

/** The floor of a new session: nothing is known final yet. */
export const NO_FLOOR = Number.MIN_SAFE_INTEGER;

/** The highest range of final ids of a session, as this process last wrote or read it. */
interface TopRange {
  first: number;
  last: number;
}

export class SessionJournal {
  private readonly s;
  /**
   * Per session, the range of final ids with the highest first id, read from the table once and kept by
   * markFinalRange. Its `last` bounds the session's final ids from above, so isFinal answers without a query for the
   * usual operation (a new one: ids increase within a session); and a new range that follows it on extends its row.
   * A transaction rolled back can leave this copy ahead of the table: the bound is then only higher (a query more),
   * and the extension names the row it expects (first and last), so it changes nothing unless that row is there
   * (then a row of its own is inserted). One writer: the file is locked.
   */
  private readonly top = new Map<number, TopRange | null>();

  constructor(readonly db: Db) {
    this.s = {
      sessions: db.prepare<[], { id: number; callback: string; floor: number; closed: number }>('SELECT id, callback, floor, closed FROM sessions ORDER BY id'),
      insertSession: db.prepare(
        `INSERT INTO sessions (id, callback, floor, closed, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)
         ON CONFLICT (id) DO UPDATE SET callback = excluded.callback, closed = 0, updated_at = excluded.updated_at`,
      ),
      setCallback: db.prepare('UPDATE sessions SET callback = ?, updated_at = ? WHERE id = ?'),
      setClosed: db.prepare('UPDATE sessions SET closed = ?, updated_at = ? WHERE id = ?'),
      floor: db.prepare<[number], { floor: number }>('SELECT floor FROM sessions WHERE id = ?'),
      setFloor: db.prepare('UPDATE sessions SET floor = ? WHERE id = ?'),
      prune: db.prepare('DELETE FROM final_ranges WHERE session = ? AND last < ?'),
      // the range with the highest first id at or below opId: the only one that can hold it (ranges are disjoint)
      rangeAt: db.prepare<[number, number], { last: number }>('SELECT last FROM final_ranges WHERE session = ? AND first <= ? ORDER BY first DESC LIMIT 1'),
      insertRange: db.prepare('INSERT INTO final_ranges (session, first, last) VALUES (?, ?, ?)'),
      extendRange: db.prepare('UPDATE final_ranges SET last = ? WHERE session = ? AND first = ? AND last = ?'),
      topRange: db.prepare<[number], TopRange>('SELECT first, last FROM final_ranges WHERE session = ? ORDER BY first DESC LIMIT 1'),
      finalsCount: db.prepare<[number], { n: number | null }>(
        `SELECT sum(r.last - max(r.first, s.floor) + 1) AS n FROM final_ranges r JOIN sessions s ON s.id = r.session
          WHERE r.session = ? AND r.last >= s.floor`,
      ),
      append: db.prepare('INSERT INTO outbox (session, status, held) VALUES (?, ?, ?)'),
      outbox: db.prepare<[], { seq: number; session: number; status: Buffer; held: number }>('SELECT seq, session, status, held FROM outbox ORDER BY seq'),
      ack: db.prepare('DELETE FROM outbox WHERE seq = ?'),
      release: db.prepare('UPDATE outbox SET held = 0 WHERE seq = ?'),
      releaseAll: db.prepare('UPDATE outbox SET held = 0 WHERE held <> 0'),
      deleteSession: db.prepare('DELETE FROM sessions WHERE id = ?'),
      deleteFinals: db.prepare('DELETE FROM final_ranges WHERE session = ?'),
      deleteOutbox: db.prepare('DELETE FROM outbox WHERE session = ?'),
    };
  }

  sessions(): SessionRow[] {
    return this.s.sessions.all().map((r) => ({ id: r.id, callback: aorSchema.parse(JSON.parse(r.callback)), floor: r.floor, closed: r.closed !== 0 }));
  }

  /** Creates the session, or reopens it with a new callback (finals and floor are kept). */
  openSession(id: number, callback: Aor, now: string): void {
    this.s.insertSession.run(id, JSON.stringify(callback), NO_FLOOR, now, now);
  }

  setCallback(id: number, callback: Aor, now: string): void {
    this.s.setCallback.run(JSON.stringify(callback), now, id);
  }

  setClosed(id: number, closed: boolean, now: string): void {
    this.s.setClosed.run(closed ? 1 : 0, now, id);
  }

  /** Forgets the session: its row, its finals and any statuses it still owed. */
  deleteSession(id: number): void {
    this.top.delete(id);
    this.db.transaction(() => {
      this.s.deleteSession.run(id);
      this.s.deleteFinals.run(id);
      this.s.deleteOutbox.run(id);
    })();
  }

  floor(id: number): number {
    return this.s.floor.get(id)?.floor ?? NO_FLOOR;
  }

  /**
   * Raises the floor to `completedOpId` if higher and prunes the ranges of finals wholly below it (a range across it
   * stays; its ids below the floor are below the floor anyway). Returns the floor in force.
   */
  raiseFloor(id: number, completedOpId: number): number {
    const floor = this.floor(id);
    if (completedOpId <= floor) return floor;
    this.s.setFloor.run(completedOpId, id);
    this.s.prune.run(id, completedOpId);
    return completedOpId;
  }

  isFinal(id: number, opId: number): boolean {
    const top = this.topOf(id);
    if (top === null || opId > top.last) return false;
    const r = this.s.rangeAt.get(id, opId);
    return r !== undefined && r.last >= opId;
  }

  /** Records the ids first..last (none of them final yet) as final. */
  markFinalRange(id: number, first: number, last: number): void {
    const top = this.topOf(id);
    if (top !== null && first === top.last + 1 && this.s.extendRange.run(last, id, top.first, top.last).changes === 1) {
      top.last = last;
      return;
    }
    this.s.insertRange.run(id, first, last);
    if (top === null || first > top.first) this.top.set(id, { first, last });
  }

  private topOf(id: number): TopRange | null {
    let top = this.top.get(id);
    if (top === undefined) {
      const row = this.s.topRange.get(id);
      top = row ? { first: row.first, last: row.last } : null;
      this.top.set(id, top);
    }
    return top;
  }

  /** How many ids at or above the floor are final (for tests and diagnostics). */
  finalsCount(id: number): number {
    return this.s.finalsCount.get(id)?.n ?? 0;
  }

  append(session: number, status: OperationStatusInfo, held = false): OutboxEntry {
    const seq = Number(this.s.append.run(session, encodeCheetah(status), held ? 1 : 0).lastInsertRowid);
    return held ? { seq, session, status, held } : { seq, session, status };
  }

  /** Held statuses may go now (their documents are searchable). Call inside the transaction that made that so. */
  release(entries: readonly OutboxEntry[]): void {
    for (const e of entries) {
      if (!e.held) continue;
      this.s.release.run(e.seq);
      delete e.held;
    }
  }

  /** Every held status may go (after the full-text entries owed were made at start). Returns how many were held. */
  releaseAll(): number {
    return this.s.releaseAll.run().changes;
  }

  outbox(): OutboxEntry[] {
    return this.s.outbox.all().map((r) => {
      const status = decodeCheetah(r.status);
      if (!(status instanceof OperationStatusInfo)) throw new Error(`outbox entry ${r.seq} is not an operation_status_info`);
      return r.held ? { seq: r.seq, session: r.session, status, held: true } : { seq: r.seq, session: r.session, status };
    });
  }

  /** Deletes delivered statuses (one transaction). */
  ack(seqs: readonly number[]): void {
    if (seqs.length === 0) return;
    this.db.transaction(() => {
      for (const seq of seqs) this.s.ack.run(seq);
    })();
  }
}
