/**
 * An archive of what the crawler read, as WARC 1.1 files (ISO 28500) that web-archive tools replay and index: per
 * page a `request` record (the GET as sent) and a `response` record (status, headers and body), each record
 * gzip-compressed on its own (a .warc.gz that can be read from any record's offset). Files are rotated once they
 * pass `maxFileBytes`; each opens with a `warcinfo` record.
 *
 * The body kept is the one the crawler read, decompressed: the response's Content-Encoding, Transfer-Encoding and
 * Content-Length headers are replaced by the Content-Length of that body, so the record says what it holds.
 *
 * Records are written one at a time in the order they come; `record` does not wait for the disk (the crawler goes
 * on) unless MAX_PENDING_RECORDS are waiting already: then it gives a promise of the backlog written, so that a slow
 * disk slows the crawl instead of filling the memory with page bodies. `close` waits for everything given so far.
 *
 *   const warc = await WarcWriter.open({ dir: '/data/warc', prefix: 'node1' });
 *   warc.record({ uri, date: new Date(), userAgent: 'esp-crawler', response });
 *   await warc.close();
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@esp/logging';
import { WARCRecord, WARCSerializer } from 'warcio';
import { ACCEPT_ENCODING, type HttpGetResult } from './http-get';

/** One GET and its answer, as the crawler made and read it. */
export interface HttpExchange {
  uri: string;
  date: Date;
  userAgent: string;
  /** headers sent besides User-Agent and Accept-Encoding (a conditional GET's) */
  requestHeaders?: Record<string, string>;
  response: HttpGetResult;
}

export interface PageArchive {
  /** Keeps the exchange; a promise when the archive is behind and the caller should wait for it. */
  record(exchange: HttpExchange): void | Promise<void>;
}

export interface WarcWriterOptions {
  dir: string;
  /** file names are <prefix>-<UTC time>-<sequence>.warc.gz */
  prefix: string;
  /** a file is closed once it holds this many bytes, the next record goes to a new one (default 1 GB, the usual) */
  maxFileBytes?: number;
  /** the software named in each warcinfo record */
  software?: string;
  log?: Logger;
}

export const DEFAULT_WARC_FILE_BYTES = 1_000_000_000;
/** Records waiting for the disk before `record` asks its caller to wait. */
export const MAX_PENDING_RECORDS = 64;
const WARC_VERSION = 'WARC/1.1';
/** headers that describe the bytes on the wire, not the decompressed body kept */
const WIRE_HEADERS = new Set(['content-encoding', 'transfer-encoding', 'content-length']);

export class WarcWriter implements PageArchive {
  private file: FileHandle | undefined;
  private fileBytes = 0;
  private sequence = 0;
  private queue: Promise<void> = Promise.resolve();
  /** the files written, in order */
  readonly files: string[] = [];
  records = 0;
  failures = 0;
  /** exchanges given and not yet written */
  private pending = 0;

  private constructor(private readonly opts: WarcWriterOptions) {}

  static async open(opts: WarcWriterOptions): Promise<WarcWriter> {
    await mkdir(opts.dir, { recursive: true });
    return new WarcWriter(opts);
  }

  record(exchange: HttpExchange): void | Promise<void> {
    this.pending++;
    this.queue = this.queue.then(() =>
      this.write(exchange)
        .catch((err: Error) => {
          this.failures++;
          this.opts.log?.warn({ uri: exchange.uri, err: err.message }, 'WARC record not written');
        })
        .finally(() => this.pending--),
    );
    return this.pending >= MAX_PENDING_RECORDS ? this.queue : undefined;
  }

  /** Waits for the records given so far to be on disk. */
  flush(): Promise<void> {
    return this.queue;
  }

  async close(): Promise<void> {
    await this.queue;
    await this.file?.close();
    this.file = undefined;
  }

  private async write(x: HttpExchange): Promise<void> {
    const date = x.date.toISOString();
    const response = WARCRecord.create(
      { url: x.uri, date, type: 'response', warcVersion: WARC_VERSION, statusline: `HTTP/1.1 ${x.response.status}`, httpHeaders: responseHeaders(x.response) },
      [x.response.body],
    );
    const u = new URL(x.uri);
    const request = WARCRecord.create(
      {
        url: x.uri,
        date,
        type: 'request',
        warcVersion: WARC_VERSION,
        statusline: `GET ${u.pathname}${u.search} HTTP/1.1`,
        httpHeaders: { host: u.host, 'user-agent': x.userAgent, 'accept-encoding': ACCEPT_ENCODING, ...x.requestHeaders },
        warcHeaders: { 'WARC-Concurrent-To': response.warcHeaders.headers.get('WARC-Record-ID') ?? '' },
      },
      [],
    );
    const bytes = [await WARCSerializer.serialize(response, { gzip: true }), await WARCSerializer.serialize(request, { gzip: true })];
    const file = await this.current();
    for (const b of bytes) {
      await file.write(b);
      this.fileBytes += b.length;
    }
    this.records += 2;
  }

  /** The file to write to: a new one (opened with its warcinfo record) when there is none or it is full. */
  private async current(): Promise<FileHandle> {
    if (this.file && this.fileBytes < (this.opts.maxFileBytes ?? DEFAULT_WARC_FILE_BYTES)) return this.file;
    await this.file?.close();
    const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const name = `${this.opts.prefix}-${stamp}-${String(this.sequence++).padStart(5, '0')}.warc.gz`;
    const path = join(this.opts.dir, name);
    this.file = await open(path, 'wx');
    this.fileBytes = 0;
    this.files.push(path);
    const info = WARCRecord.createWARCInfo({ filename: name, warcVersion: WARC_VERSION }, { software: this.opts.software ?? 'esp node-scheduler', format: 'WARC File Format 1.1' });
    const b = await WARCSerializer.serialize(info, { gzip: true });
    await this.file.write(b);
    this.fileBytes += b.length;
    return this.file;
  }
}

function responseHeaders(res: HttpGetResult): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(res.headers ?? {})) {
    if (value === undefined || WIRE_HEADERS.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push([name, v]);
  }
  out.push(['content-length', String(res.body.length)]);
  return out;
}
