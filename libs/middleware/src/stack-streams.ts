/**
 * The stack's JetStream: the streams the stack owns, created at start-up by an identity that may (the launcher
 * holds admin), and checked on every start. A stream that exists with another configuration is an error naming the
 * difference; for the fields the stack sets itself (the content bucket's bound and TTL, rollups and deletes off)
 * it is corrected, and said so.
 *
 *   const r = await ensureStackStreams(mw.nc, { contentMaxBytes: 2 * 1024 ** 3 });
 *   // r.created: ['OBJ_esp_content', 'KV_esp_names'], r.corrected: ['OBJ_esp_content: max_bytes -1 (...)']
 */
import { DEFAULT_CONTENT_BUCKET } from '@esp/interfaces';
import { jetstream, type JetStreamManager, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { contentStreamConfig, SECURITY_FIELDS, streamDifferences, TUNABLE_FIELDS } from './content-stream';
import { NAME_BUCKET } from './subjects';

/** A stream of the stack's name exists with a configuration that is not the stack's (and is not corrected). */
export class StackStreamError extends Error {
  override name = 'StackStreamError';
  readonly code = 'stream_misconfigured';
  constructor(
    readonly stream: string,
    readonly differences: readonly string[],
  ) {
    super(`the stream ${stream} exists with a configuration that is not the stack's: ${differences.join('; ')}. Someone else created or changed it; delete it (nats stream rm ${stream}, as admin) and start again`);
  }
}

export interface StackStreamOptions {
  contentBucket?: string;
  /** The content bucket's bound in bytes (-1: none). */
  contentMaxBytes?: number;
  contentTtlMs?: number;
  replicas?: number;
}

export interface StackStreamReport {
  created: string[];
  corrected: string[];
  checked: string[];
}

/** Content-stream fields the stack corrects on a stream it made before: tightening only, or its own options. */
const CONTENT_CORRECTABLE = ['allow_rollup_hdrs', 'deny_delete', ...TUNABLE_FIELDS] as const;
/** What the name bucket must be: the KV layout, nothing more (its rollups are the name server's: only it may publish there). */
const KV_FIELDS = ['subjects', 'mirror', 'sources', 'sealed', 'republish', 'max_msgs_per_subject'] as const;

async function info(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (/stream not found/i.test((err as Error).message)) return undefined;
    throw err;
  }
}

async function ensureContent(jsm: JetStreamManager, opts: StackStreamOptions, r: StackStreamReport): Promise<void> {
  const bucket = opts.contentBucket ?? DEFAULT_CONTENT_BUCKET;
  const want = contentStreamConfig(bucket, {
    ...(opts.contentTtlMs !== undefined ? { ttlMs: opts.contentTtlMs } : {}),
    ...(opts.contentMaxBytes !== undefined ? { maxBytes: opts.contentMaxBytes } : {}),
    replicas: opts.replicas ?? 1,
  });
  const name = want.name as string;
  const found = await info(jsm, name);
  if (!found) {
    await jsm.streams.add(want);
    r.created.push(name);
    return;
  }
  const foreign = streamDifferences(found.config, want, SECURITY_FIELDS.filter((f) => !(CONTENT_CORRECTABLE as readonly string[]).includes(f)));
  if (foreign.length) throw new StackStreamError(name, foreign);
  const own = streamDifferences(found.config, want, CONTENT_CORRECTABLE);
  if (own.length) {
    await jsm.streams.update(name, { ...found.config, ...pick(want, CONTENT_CORRECTABLE) });
    const after = streamDifferences((await jsm.streams.info(name)).config, want, CONTENT_CORRECTABLE);
    if (after.length) throw new StackStreamError(name, after.map((d) => `${d}, and the server did not take the correction`));
    r.corrected.push(`${name}: ${own.join('; ')}`);
  } else r.checked.push(name);
}

function pick(c: Partial<StreamConfig>, fields: readonly string[]): Partial<StreamConfig> {
  return Object.fromEntries(fields.filter((f) => f in c).map((f) => [f, c[f as keyof StreamConfig]]));
}

async function ensureNames(nc: NatsConnection, jsm: JetStreamManager, opts: StackStreamOptions, r: StackStreamReport): Promise<void> {
  const name = `KV_${NAME_BUCKET}`;
  const found = await info(jsm, name);
  if (!found) {
    // as the name server opens it (name-registry.ts), so that it finds what it would have made
    await new Kvm(nc).create(NAME_BUCKET, { history: 1, replicas: opts.replicas ?? 1, storage: 'file' });
    r.created.push(name);
    return;
  }
  const want: Partial<StreamConfig> = { subjects: [`$KV.${NAME_BUCKET}.>`], max_msgs_per_subject: 1 };
  const diffs = streamDifferences(found.config, want, KV_FIELDS);
  if (diffs.length) throw new StackStreamError(name, diffs);
  r.checked.push(name);
}

export async function ensureStackStreams(nc: NatsConnection, opts: StackStreamOptions = {}): Promise<StackStreamReport> {
  const jsm = await jetstream(nc).jetstreamManager();
  const r: StackStreamReport = { created: [], corrected: [], checked: [] };
  await ensureContent(jsm, opts, r);
  await ensureNames(nc, jsm, opts, r);
  return r;
}
