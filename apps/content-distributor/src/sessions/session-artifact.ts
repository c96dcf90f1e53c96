import { CodecError, decodeCheetah, encodedEntityOf, encodeCheetah, OperationSet } from '@esp/codecs';
import type { Aor, SessionGuarantees } from '@esp/interfaces';

/**
 * A feeding session as SSR artifacts: what a distributor needs to carry a session on after the distributor that held
 * it died, without the client sending again anything it was told was accepted.
 *
 * A tree (SSR 2.4.2.4): the session itself (`feeding-session-<id>`: collection, callback, operation ids, the hash of
 * its owner token; a few hundred bytes) and one child per batch in flight (`feeding-session-<id>/batch-<first>-<last>`, its body the batch as the
 * client sent it), kept from the moment the distributor accepts the batch until the item processor reports it
 * `processed` (it has handed it to the indexer, whose journal owns it from then on). A batch is written once, when it
 * is accepted, and removed once; the session's own artifact changes without carrying the batches. (Format 1 kept the
 * batches inside the session's artifact, so every change copied every batch in flight again, twice per batch, and
 * those buffers drove the distributor into frequent major garbage collections. Format 1 artifacts are still read.)
 *
 * Reading back: the session, then its children (SsrNode.children, which waits for the tree activation of a parent
 * just reactivated); a child not yet removed when the distributor died is a batch sent once more, which the indexer's
 * arbitration of operation ids makes harmless.
 */
export interface InFlightBatch {
  first: number;
  last: number;
  /** encodeCheetah(OperationSet): the batch as the client sent it. */
  bytes: Uint8Array;
}

export interface SessionArtifact {
  id: number;
  collection: string;
  /** The content client's operation_callback (the indexer's finals go there after a recreate). */
  callback: Aor | undefined;
  /**
   * SHA-256 (hex) of the owner token given at creation (./session-owner); undefined: opened without one (or saved in
   * format 1 or 2, before there were owners).
   */
  owner?: string | undefined;
  /**
   * Guarantees asked at creation (MS-FSCDFT 3.5.4.1: one feeding_priority or none), as guaranteeStrings writes them:
   * `feeding_priority=<priority>`. Kept so that the session keeps them on the distributor that reactivates it.
   */
  guarantees: string[];
  /** Highest operation id accepted (acknowledged or about to be): a copy with an id at or below it is refused. */
  lastAcceptedOpId: number;
  /** The client's completed_op_id: every operation at or below it has its final status. */
  completedOpId: number;
  inFlight: InFlightBatch[];
}

/**
 * Format version of the session's body (3: format 2 and the owner's hash last); a reader refuses an unknown one
 * rather than guess.
 */
const FORMAT = 3;
/** Format 2: batches as children, no owner. Read, no longer written. */
const FORMAT_NO_OWNER = 2;
/** Format 1: the batches in flight inside the session's body. Read, no longer written. */
const FORMAT_WITH_BATCHES = 1;

export class SessionArtifactError extends CodecError {
  override name = 'SessionArtifactError';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('session_artifact', message, options);
  }
}

/** The SSR artifact id of a feeding session (one namespace per cluster: the SSR cluster is the distributors'). */
export function sessionArtifactId(id: number): string {
  return `feeding-session-${id}`;
}

const FEEDING_PRIORITY = /^feeding_priority=(-?\d+)$/;

/** A session's guarantees as its artifact keeps them. */
export function guaranteeStrings(g: SessionGuarantees): string[] {
  return g.priority === undefined ? [] : [`feeding_priority=${g.priority}`];
}

/** The guarantees an artifact kept (guaranteeStrings); SessionArtifactError for one this version does not know. */
export function guaranteesOf(strings: readonly string[]): SessionGuarantees {
  let priority: number | undefined;
  for (const s of strings) {
    const m = FEEDING_PRIORITY.exec(s);
    if (!m || priority !== undefined) throw new SessionArtifactError(`session artifact: unknown guarantees ${JSON.stringify(strings)}`);
    priority = Number(m[1]);
  }
  return { priority };
}

const BATCH_CHILD = /^feeding-session-(\d+)\/batch-(\d+)-(\d+)$/;

/** The SSR artifact id of a batch in flight of a session: a child of the session's artifact. */
export function batchArtifactId(sessionId: number, b: Pick<InFlightBatch, 'first' | 'last'>): string {
  return `${sessionArtifactId(sessionId)}/batch-${b.first}-${b.last}`;
}

/** The batch a child artifact holds, undefined for an id that is not a batch of `sessionId`. */
export function batchOfArtifact(sessionId: number, id: string, body: Uint8Array): InFlightBatch | undefined {
  const m = BATCH_CHILD.exec(id);
  if (!m || Number(m[1]) !== sessionId) return undefined;
  return { first: Number(m[2]), last: Number(m[3]), bytes: body };
}

/**
 * A batch as it will be kept: the bytes it was decoded from where the process keeps encoded forms (the distributor
 * does, for OperationSet: no encoding, no copy), else encoded.
 */
export function encodeBatch(batch: OperationSet): InFlightBatch {
  const ops = batch.operations;
  return { first: ops[0]?.id ?? 0, last: ops[ops.length - 1]?.id ?? 0, bytes: encodedEntityOf(batch) ?? encodeCheetah(batch) };
}

export function decodeBatch(b: InFlightBatch): OperationSet {
  const v = decodeCheetah(b.bytes);
  if (!(v instanceof OperationSet)) throw new SessionArtifactError(`in-flight batch ${b.first}-${b.last} is not an operation_set`);
  return v;
}

/** The session's own artifact: everything but the batches in flight, which are its children. */
export function encodeSessionArtifact(s: Omit<SessionArtifact, 'inFlight'>): Uint8Array {
  return encodeCheetah([FORMAT, s.id, s.collection, s.callback ?? null, s.guarantees, s.lastAcceptedOpId, s.completedOpId, s.owner ?? null]);
}

/** Format 2, as earlier versions wrote it (tests of the reader). */
export function encodeSessionArtifactV2(s: Omit<SessionArtifact, 'inFlight'>): Uint8Array {
  return encodeCheetah([FORMAT_NO_OWNER, s.id, s.collection, s.callback ?? null, s.guarantees, s.lastAcceptedOpId, s.completedOpId]);
}

/** Format 1, as earlier versions wrote it (tests of the reader). */
export function encodeSessionArtifactV1(s: SessionArtifact): Uint8Array {
  return encodeCheetah([FORMAT_WITH_BATCHES, s.id, s.collection, s.callback ?? null, s.guarantees, s.lastAcceptedOpId, s.completedOpId, s.inFlight.map((b) => [b.first, b.last, b.bytes])]);
}

/**
 * The session's own artifact. In format 2 `inFlight` is empty (the batches are its children: see withBatches); a
 * format 1 body carries them.
 */
export function decodeSessionArtifact(body: Uint8Array): SessionArtifact {
  let v: unknown;
  try {
    v = decodeCheetah(body);
  } catch (err) {
    throw new SessionArtifactError('undecodable session artifact', { cause: err });
  }
  const format = Array.isArray(v) ? v[0] : undefined;
  const known = Array.isArray(v) && ((v.length === 8 && format === FORMAT) || (v.length === 7 && format === FORMAT_NO_OWNER) || (v.length === 8 && format === FORMAT_WITH_BATCHES));
  if (!known) throw new SessionArtifactError(`session artifact of an unknown format (${Array.isArray(v) ? String(v[0]) : typeof v})`);
  const [, id, collection, callback, guarantees, lastAccepted, completed, last] = v as unknown[];
  const inFlight = format === FORMAT_WITH_BATCHES ? last : [];
  const owner = format === FORMAT ? last : null;
  if (owner !== null && (typeof owner !== 'string' || !/^[0-9a-f]{64}$/.test(owner))) throw new SessionArtifactError('session artifact: owner is not a SHA-256 (hex)');
  if (typeof id !== 'number' || typeof collection !== 'string' || typeof lastAccepted !== 'number' || typeof completed !== 'number') {
    throw new SessionArtifactError('session artifact with a malformed header');
  }
  if (!Array.isArray(guarantees) || !guarantees.every((g) => typeof g === 'string')) throw new SessionArtifactError('session artifact: guarantees must be strings');
  if (callback !== null && (typeof callback !== 'object' || typeof (callback as Aor).object_id !== 'string')) throw new SessionArtifactError('session artifact: callback is not an AOR');
  if (!Array.isArray(inFlight)) throw new SessionArtifactError('session artifact: in-flight batches must be a list');
  const batches = inFlight.map((b: unknown) => {
    if (!Array.isArray(b) || typeof b[0] !== 'number' || typeof b[1] !== 'number' || !(b[2] instanceof Uint8Array)) throw new SessionArtifactError('session artifact: malformed in-flight batch');
    return { first: b[0], last: b[1], bytes: b[2] };
  });
  return {
    id,
    collection,
    callback: (callback as Aor | null) ?? undefined,
    owner: owner ?? undefined,
    guarantees: guarantees as string[],
    lastAcceptedOpId: lastAccepted,
    completedOpId: completed,
    inFlight: batches,
  };
}

/**
 * The session with its batches in flight (the children found with it, and those of a format 1 body): a batch that is
 * in flight was accepted, so the highest accepted id is at least its last id (the session's own artifact is updated
 * after the batch's, lazily).
 */
export function withBatches(s: SessionArtifact, children: readonly InFlightBatch[]): SessionArtifact {
  const byFirst = new Map<number, InFlightBatch>();
  for (const b of [...s.inFlight, ...children]) byFirst.set(b.first, b);
  const inFlight = [...byFirst.values()].sort((a, b) => a.first - b.first);
  const accepted = inFlight.reduce((m, b) => Math.max(m, b.last), s.lastAcceptedOpId);
  return { ...s, lastAcceptedOpId: accepted, inFlight };
}

/**
 * Which batches of a reactivated session go to item processors again, oldest first. A batch whose every operation
 * is at or below the client's completed_op_id already has its finals (the indexer took it) and is not sent; the
 * others are, whole: the indexer is the arbiter of operation ids and ignores a copy of an operation already final,
 * so a batch that did reach it before the death costs a little work, never a second final.
 */
export function batchesToRedispatch(s: Pick<SessionArtifact, 'inFlight' | 'completedOpId'>): InFlightBatch[] {
  return s.inFlight.filter((b) => b.last > s.completedOpId).sort((a, b) => a.first - b.first);
}
