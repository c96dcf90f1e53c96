import { CodecError, decodeCheetah, encodeCheetah, OperationSet } from '@esp/codecs';
import type { Aor } from '@esp/interfaces';

/**
 * A feeding session as an SSR artifact (issue #8): what a distributor needs to carry a session on after the
 * distributor that held it died, without the client sending again anything it was told was accepted.
 *
 * The batches in flight are kept from the moment the distributor accepts them until the item processor reports them
 * `processed` (it has handed them to the indexer, whose journal owns them from then on). Each batch is encoded once
 * (`bytes`) and the same bytes go into every later version of the artifact, so a session with several batches in
 * flight is not re-encoded batch by batch on every change.
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
  /** Guarantees asked at creation (kept as given; no guarantee is implemented beyond the default ones). */
  guarantees: string[];
  /** Highest operation id accepted (acknowledged or about to be): a copy with an id at or below it is refused. */
  lastAcceptedOpId: number;
  /** The client's completed_op_id: every operation at or below it has its final status. */
  completedOpId: number;
  inFlight: InFlightBatch[];
}

/** Format version of the body; a reader refuses another one rather than guess. */
const FORMAT = 1;

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

export function encodeBatch(batch: OperationSet): InFlightBatch {
  const ops = batch.operations;
  return { first: ops[0]?.id ?? 0, last: ops[ops.length - 1]?.id ?? 0, bytes: encodeCheetah(batch) };
}

export function decodeBatch(b: InFlightBatch): OperationSet {
  const v = decodeCheetah(b.bytes);
  if (!(v instanceof OperationSet)) throw new SessionArtifactError(`in-flight batch ${b.first}-${b.last} is not an operation_set`);
  return v;
}

export function encodeSessionArtifact(s: SessionArtifact): Uint8Array {
  return encodeCheetah([FORMAT, s.id, s.collection, s.callback ?? null, s.guarantees, s.lastAcceptedOpId, s.completedOpId, s.inFlight.map((b) => [b.first, b.last, b.bytes])]);
}

export function decodeSessionArtifact(body: Uint8Array): SessionArtifact {
  let v: unknown;
  try {
    v = decodeCheetah(body);
  } catch (err) {
    throw new SessionArtifactError('undecodable session artifact', { cause: err });
  }
  if (!Array.isArray(v) || v.length !== 8 || v[0] !== FORMAT) throw new SessionArtifactError(`session artifact of an unknown format (${Array.isArray(v) ? String(v[0]) : typeof v})`);
  const [, id, collection, callback, guarantees, lastAccepted, completed, inFlight] = v as unknown[];
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
  return { id, collection, callback: (callback as Aor | null) ?? undefined, guarantees: guarantees as string[], lastAcceptedOpId: lastAccepted, completedOpId: completed, inFlight: batches };
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
