/**
 * What an indexing session must remember across a restart, in the collection's database next to its documents
 * (so that one transaction covers a batch's writes and its bookkeeping):
 *
 * - sessions: the client's callback AOR, the floor (highest completed_op_id seen: the client has every final below
 *   it), and whether the session was closed with callbacks still owed;
 * - finals: the operation ids at or above the floor already decided final (completed, failed or lost). A later copy
 *   of one of them is ignored. Rows below the floor are pruned: an id below it is final by the client's own word;
 * - outbox: the statuses decided but not yet acknowledged by the client, in order. They are written in the batch's
 *   transaction and deleted once delivered, so a crash between commit and callback loses nothing (a status may be
 *   delivered twice across a crash; the callback contract lets clients dedupe by operation id).
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
}

/** The floor of a new session: nothing is known final yet. */
export const NO_FLOOR = Number.MIN_SAFE_INTEGER;

export class SessionJournal {
  private readonly s;
  /**
   * Per session, an upper bound of the operation ids in its finals, read from the table once and raised by
   * markFinal. An id above it cannot be final, so isFinal answers without a query for the usual operation (a new
   * one: ids increase within a session). A transaction rolled back leaves the bound higher than the table's
   * maximum, which only costs a query; rows are never added without markFinal (one writer: the file is locked).
   */
  private readonly maxFinal = new Map<number, number>();

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
      prune: db.prepare('DELETE FROM finals WHERE session = ? AND op_id < ?'),
      isFinal: db.prepare<[number, number], { state: number }>('SELECT state FROM finals WHERE session = ? AND op_id = ?'),
      markFinal: db.prepare('INSERT INTO finals (session, op_id, state) VALUES (?, ?, ?)'),
      finalsCount: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM finals WHERE session = ?'),
      maxFinal: db.prepare<[number], { m: number | null }>('SELECT max(op_id) AS m FROM finals WHERE session = ?'),
      append: db.prepare('INSERT INTO outbox (session, status) VALUES (?, ?)'),
      outbox: db.prepare<[], { seq: number; session: number; status: Buffer }>('SELECT seq, session, status FROM outbox ORDER BY seq'),
      ack: db.prepare('DELETE FROM outbox WHERE seq = ?'),
      deleteSession: db.prepare('DELETE FROM sessions WHERE id = ?'),
      deleteFinals: db.prepare('DELETE FROM finals WHERE session = ?'),
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
    this.maxFinal.delete(id);
    this.db.transaction(() => {
      this.s.deleteSession.run(id);
      this.s.deleteFinals.run(id);
      this.s.deleteOutbox.run(id);
    })();
  }

  floor(id: number): number {
    return this.s.floor.get(id)?.floor ?? NO_FLOOR;
  }

  /** Raises the floor to `completedOpId` if higher and prunes the finals below it. Returns the floor in force. */
  raiseFloor(id: number, completedOpId: number): number {
    const floor = this.floor(id);
    if (completedOpId <= floor) return floor;
    this.s.setFloor.run(completedOpId, id);
    this.s.prune.run(id, completedOpId);
    return completedOpId;
  }

  isFinal(id: number, opId: number): boolean {
    if (opId > this.maxFinalOf(id)) return false;
    return this.s.isFinal.get(id, opId) !== undefined;
  }

  markFinal(id: number, opId: number, state: number): void {
    this.s.markFinal.run(id, opId, state);
    if (opId > this.maxFinalOf(id)) this.maxFinal.set(id, opId);
  }

  private maxFinalOf(id: number): number {
    let max = this.maxFinal.get(id);
    if (max === undefined) {
      max = this.s.maxFinal.get(id)?.m ?? Number.MIN_SAFE_INTEGER;
      this.maxFinal.set(id, max);
    }
    return max;
  }

  finalsCount(id: number): number {
    return this.s.finalsCount.get(id)?.n ?? 0;
  }

  append(session: number, status: OperationStatusInfo): OutboxEntry {
    const seq = Number(this.s.append.run(session, encodeCheetah(status)).lastInsertRowid);
    return { seq, session, status };
  }

  outbox(): OutboxEntry[] {
    return this.s.outbox.all().map((r) => {
      const status = decodeCheetah(r.status);
      if (!(status instanceof OperationStatusInfo)) throw new Error(`outbox entry ${r.seq} is not an operation_status_info`);
      return { seq: r.seq, session: r.session, status };
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
