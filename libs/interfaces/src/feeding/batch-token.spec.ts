import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Action, DocumentEntity, DocumentError, DocumentId, FailedOperation, OperationSet, OperationState, RemoveOperation, StringAttribute, UpdateOperation } from '@esp/codecs';
import { describe, expect, it } from 'vitest';
import { BatchKeyError, BatchSigner } from './batch-token';

const update = (id: number, docId: string, body: string) =>
  new UpdateOperation({ id, doc: new DocumentEntity({ doc_id: new DocumentId({ id: docId }), document_attributes: [new StringAttribute({ key: 'body', value: body })] }) });
const set = (...operations: UpdateOperation[] | RemoveOperation[]) => new OperationSet({ completed_op_id: 3, operations });

describe('BatchSigner', () => {
  const signer = new BatchSigner(Buffer.alloc(32, 7));
  const batch = set(update(4, 'a', 'one'), update(5, 'b', 'two'));
  const token = signer.token(9, 'news', batch);

  it("checks a processed batch of the same operations and documents, whatever their content (the processor's work)", () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.verify(9, 'news', set(update(4, 'a', 'ONE processed'), update(5, 'b', 'changed')), token)).toBe(true);
    // an operation the pipeline failed keeps its id and document
    const failed = new OperationSet({ completed_op_id: 3, operations: [update(4, 'a', 'x'), new FailedOperation({ id: 5, state: OperationState.completed, doc_id: new DocumentId({ id: 'b' }), err: new DocumentError({ error_code: 1, suggested_action: Action.drop, description: 'dropped', subsystem: 'processing', session_id: 9, operation_id: 5, arguments: [] }) })] });
    expect(signer.verify(9, 'news', failed, token)).toBe(true);
  });

  it('refuses another document, another or an added operation, another session or collection, no token, another key', () => {
    expect(signer.verify(9, 'news', set(update(4, 'victim', 'x'), update(5, 'b', 'two')), token)).toBe(false);
    expect(signer.verify(9, 'news', set(update(4, 'a', 'one'), update(6, 'b', 'two')), token)).toBe(false);
    expect(signer.verify(9, 'news', set(update(4, 'a', 'one'), update(5, 'b', 'two'), update(6, 'c', 'three')), token)).toBe(false);
    expect(signer.verify(8, 'news', batch, token)).toBe(false);
    expect(signer.verify(9, 'other', batch, token)).toBe(false);
    expect(signer.verify(9, 'news', set(new RemoveOperation({ id: 4, doc_id: new DocumentId({ id: 'a' }) })), token)).toBe(false);
    expect(signer.verify(9, 'news', batch, undefined)).toBe(false);
    expect(signer.verify(9, 'news', batch, token.slice(0, 20))).toBe(false);
    expect(new BatchSigner(Buffer.alloc(32, 8)).verify(9, 'news', batch, token)).toBe(false);
  });

  it('gives each indexing session an object id stable for the key and unpredictable without it', () => {
    expect(signer.sessionObjectId(9)).toMatch(/^indexing-session-9-[0-9a-f]{24}$/);
    expect(signer.sessionObjectId(9)).toBe(new BatchSigner(Buffer.alloc(32, 7)).sessionObjectId(9));
    expect(signer.sessionObjectId(9)).not.toBe(new BatchSigner(Buffer.alloc(32, 8)).sessionObjectId(9));
    expect(signer.sessionObjectId(9)).not.toBe(signer.sessionObjectId(10));
  });

  it('reads the key from a file; a short or missing one is a BatchKeyError; no file, no signer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'batch-key-'));
    writeFileSync(join(dir, 'ok'), Buffer.alloc(32, 1));
    writeFileSync(join(dir, 'short'), 'abc');
    expect(BatchSigner.fromFile(join(dir, 'ok'))).toBeInstanceOf(BatchSigner);
    expect(BatchSigner.fromFile(undefined)).toBeUndefined();
    expect(() => BatchSigner.fromFile(join(dir, 'short'))).toThrow(BatchKeyError);
    expect(() => BatchSigner.fromFile(join(dir, 'missing'))).toThrow(/cannot read the batch key .*missing/);
  });
});
