/**
 * The stream behind a content bucket (the JetStream object store OBJ_<bucket>), as the stack wants it: its
 * configuration, and the check of an existing one against it. The stack creates the stream at start-up
 * (tools/launcher/src/bus/jetstream-setup.ts); every role that opens the bucket checks what it finds, so a stream
 * someone else created with other subjects or with rollups allowed is an error naming the difference, never reused.
 *
 *   const want = contentStreamConfig('esp_content', { maxBytes: 2 * 1024 ** 3 });
 *   const diffs = streamDifferences(info.config, want, SECURITY_FIELDS);   // [] when it is the stack's
 *
 * Rollups are off (allow_rollup_hdrs false): a publish with `Nats-Rollup: all` on a description subject would wipe
 * the bucket, and NATS permissions cannot tell a header. The object store's own client rolls up an object's
 * description when it replaces or deletes one; ours writes descriptions without it (blob-put.ts: the last one of a
 * name is the one readers see) and deletes by purging the object's subjects (blob-store.ts). docs/decisions/
 * 0012-content-stream-without-rollups.md has the reasoning.
 */
import type { StreamConfig } from '@nats-io/jetstream';

/** Objects older than this are removed by the server: what a crash left behind. */
export const DEFAULT_BLOB_TTL_MS = 24 * 3600 * 1000;
/** The bucket's size bound unless the stack is told otherwise (--content-max-bytes). */
export const DEFAULT_CONTENT_MAX_BYTES = 2 * 1024 ** 3;

export interface ContentStreamOptions {
  ttlMs?: number;
  replicas?: number;
  /** The bucket holds at most this many bytes; a put beyond is refused (discard new). -1: no bound. */
  maxBytes?: number;
}

export function contentStreamName(bucket: string): string {
  return `OBJ_${bucket}`;
}

/** The subjects of a bucket's chunks and descriptions, as the object store lays them out. */
export function contentSubjects(bucket: string): [string, string] {
  return [`$O.${bucket}.C.>`, `$O.${bucket}.M.>`];
}

export function contentStreamConfig(bucket: string, opts: ContentStreamOptions = {}): Partial<StreamConfig> & { name: string } {
  return {
    name: contentStreamName(bucket),
    subjects: contentSubjects(bucket),
    max_age: (opts.ttlMs ?? DEFAULT_BLOB_TTL_MS) * 1_000_000,
    max_bytes: opts.maxBytes ?? DEFAULT_CONTENT_MAX_BYTES,
    num_replicas: opts.replicas ?? 1,
    discard: 'new' as StreamConfig['discard'],
    allow_direct: true,
    allow_rollup_hdrs: false,
    deny_delete: true,
    deny_purge: false,
    storage: 'file' as StreamConfig['storage'],
  };
}

/** What makes a stream someone else's: another value of one of these is never reused, whatever the caller. */
export const SECURITY_FIELDS = ['subjects', 'allow_rollup_hdrs', 'deny_delete', 'mirror', 'sources', 'sealed', 'republish'] as const;
/** What the stack sets from its options, and corrects on its own stream at start-up. */
export const TUNABLE_FIELDS = ['max_age', 'max_bytes', 'discard', 'allow_direct', 'num_replicas'] as const;

type Field = keyof StreamConfig;

function normal(field: Field, v: unknown): unknown {
  if (v === undefined || v === null) {
    if (field === 'allow_rollup_hdrs' || field === 'deny_delete' || field === 'deny_purge' || field === 'sealed' || field === 'allow_direct') return false;
    if (field === 'sources' || field === 'subjects') return [];
    if (field === 'max_bytes') return -1;
    return undefined;
  }
  if (Array.isArray(v)) return [...v].map((x) => (typeof x === 'object' ? JSON.stringify(x) : x)).sort();
  return v;
}

/**
 * The fields of `fields` in which `actual` is not `want`, one line each ("subjects [a, b] (the stack's: [a])").
 * A field `want` does not set is expected absent (no mirror, no sources, no republish).
 */
export function streamDifferences(actual: Partial<StreamConfig>, want: Partial<StreamConfig>, fields: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of fields as Field[]) {
    const a = normal(f, actual[f]);
    const w = normal(f, want[f]);
    if (JSON.stringify(a) !== JSON.stringify(w)) out.push(`${f} ${JSON.stringify(a) ?? 'unset'} (the stack's: ${JSON.stringify(w) ?? 'unset'})`);
  }
  return out;
}
