/**
 * The batch key: a secret of the content distributors and the indexer (never of the item processors), from which
 * (1) each dispatched batch gets a token and (2) each indexing session's object id gets an unpredictable suffix.
 * The distributor hands the token to the item processor with the batch (processor_server::process, its last
 * argument); the processor passes it on with the processed batch (coreprocessing::session::process); the indexer
 * recomputes it from the batch it got and refuses the batch when it differs (batch_not_authorized).
 *
 * The token is an HMAC-SHA256 of the session id, the collection, completed_op_id and each operation's id and
 * document id, in order: an item processor may change the content of the documents it was given (that is its job),
 * and may not add, drop or retarget an operation, nor write into a session with a batch it was not given. Nothing
 * is kept per batch: a restarted indexer and another distributor (after a failover) check the same tokens.
 *
 *   const signer = BatchSigner.fromFile(process.env[BATCH_KEY_ENV]);      // undefined when no file is named
 *   const token = signer.token(7, 'news', batch);                         // the distributor, per dispatch
 *   signer.verify(7, 'news', processed, token);                           // the indexer: true or false
 *   signer.sessionObjectId(7);                                            // indexing-session-7-<24 hex>
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { FailedOperation, PartialUpdateOperation, RemoveOperation, UpdateOperation, type OperationSet } from '@esp/codecs';

/** The environment variable naming the batch key's file (its whole content is the key, at least 32 bytes). */
export const BATCH_KEY_ENV = 'ESP_BATCH_KEY_FILE';
const MIN_KEY_BYTES = 32;

/** The batch key's file is missing, unreadable or too short. */
export class BatchKeyError extends Error {
  override name = 'BatchKeyError';
  readonly code = 'batch_key';
}

function docIdOf(op: unknown): string {
  if (op instanceof UpdateOperation || op instanceof PartialUpdateOperation) return op.doc.doc_id.id;
  if (op instanceof RemoveOperation || op instanceof FailedOperation) return op.doc_id.id;
  return '';
}

export class BatchSigner {
  private readonly key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length < MIN_KEY_BYTES) throw new BatchKeyError(`the batch key has ${key.length} bytes; at least ${MIN_KEY_BYTES} are needed`);
    this.key = Buffer.from(key);
  }

  /** The signer of the key in `file`; undefined when `file` is undefined or empty (no batch key: no tokens). */
  static fromFile(file: string | undefined): BatchSigner | undefined {
    if (!file) return undefined;
    let key: Buffer;
    try {
      key = readFileSync(file);
    } catch (err) {
      throw new BatchKeyError(`cannot read the batch key ${file} (${BATCH_KEY_ENV}): ${(err as Error).message}`, { cause: err });
    }
    try {
      return new BatchSigner(key);
    } catch (err) {
      throw new BatchKeyError(`${(err as Error).message} (${file})`);
    }
  }

  /** The token of `batch` of session `sessionId` in `collection` (43 base64url characters). */
  token(sessionId: number, collection: string, batch: OperationSet): string {
    const h = createHmac('sha256', this.key);
    h.update(`esp-batch-v1\n${sessionId}\n${JSON.stringify(collection)}\n${batch.completed_op_id}\n`);
    for (const op of batch.operations) h.update(`${op.id} ${JSON.stringify(docIdOf(op))}\n`);
    return h.digest('base64url');
  }

  /** True when `token` is the token of this batch (compared in constant time). */
  verify(sessionId: number, collection: string, batch: OperationSet, token: string | undefined): boolean {
    if (!token) return false;
    const want = Buffer.from(this.token(sessionId, collection, batch));
    const got = Buffer.from(token);
    return got.length === want.length && timingSafeEqual(got, want);
  }

  /** The object id of indexing session `sessionId`: stable for the key (a restarted indexer serves it again), unpredictable without it. */
  sessionObjectId(sessionId: number): string {
    const suffix = createHmac('sha256', this.key).update(`esp-indexing-session-v1\n${sessionId}`).digest('hex').slice(0, 24);
    return `indexing-session-${sessionId}-${suffix}`;
  }
}
