/**
 * The stack's JetStream, set up by the launcher before any role starts: the content bucket's stream (no rollups,
 * no message deletes, a size bound) and the name bucket, created when missing and checked on every start
 * (ensureStackStreams in @esp/middleware). A stream of the stack's name with a foreign configuration stops the
 * start with the difference named. The launcher connects as admin on the secured bus: no other role may create,
 * update or delete a stream.
 *
 *   await setUpJetStream({ url: nats.url, identity: bus?.env('admin'), contentMaxBytes, say });
 */
import { createLogger } from '@esp/logging';
import { DEFAULT_CONTENT_MAX_BYTES, ensureStackStreams, Middleware } from '@esp/middleware';

export interface JetStreamSetupOptions {
  url: string;
  /** NATS_USER, NATS_PASSWORD, NATS_CA of the identity that sets up (admin); none on an open bus. */
  identity?: Record<string, string>;
  contentMaxBytes?: number;
  say: (line: string) => void;
}

const UNITS: Record<string, number> = { '': 1, k: 1024, ki: 1024, kib: 1024, m: 1024 ** 2, mi: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gi: 1024 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tib: 1024 ** 4 };

/** "2GiB", "500m", "1048576" → bytes; -1 for "none". Throws a message naming the value. */
export function parseByteSize(text: string, what: string): number {
  if (/^(none|-1)$/i.test(text.trim())) return -1;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = m ? UNITS[(m[2] ?? '').toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new Error(`${what} must be a size such as 2GiB, 500MiB or a number of bytes (or "none"), got "${text}"`);
  const n = Math.floor(Number(m[1]) * unit);
  if (n < 1024 * 1024) throw new Error(`${what} must be at least 1MiB, got "${text}"`);
  return n;
}

export async function setUpJetStream(opts: JetStreamSetupOptions): Promise<void> {
  const id = opts.identity;
  const mw = await Middleware.connect({
    name: 'launcher-jetstream-setup',
    servers: opts.url,
    logger: createLogger('launcher', {}, { level: 'warn' }),
    timeoutMs: 10_000,
    waitForServer: true,
    ...(id ? { security: { user: id['NATS_USER'] as string, password: id['NATS_PASSWORD'] as string, ...(id['NATS_CA'] ? { tls: { caFile: id['NATS_CA'] } } : {}) } } : {}),
  });
  try {
    const r = await ensureStackStreams(mw.nc, { contentMaxBytes: opts.contentMaxBytes ?? DEFAULT_CONTENT_MAX_BYTES });
    for (const c of r.corrected) opts.say(`JetStream: corrected ${c}`);
    const parts = [r.created.length ? `created ${r.created.join(', ')}` : '', r.checked.length ? `checked ${r.checked.join(', ')}` : ''].filter(Boolean);
    if (parts.length) opts.say(`JetStream: ${parts.join('; ')}`);
  } finally {
    await mw.close();
  }
}
