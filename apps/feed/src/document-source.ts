import { createReadStream, type Stats } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { FeedDocument } from '@esp/content-client';
import { detectType, HEAD_BYTES } from './detect-type';
import { InputError, type Skip } from './input-error';
import { documentFromJson, LineSplitter, MAX_JSON_DEPTH, MAX_LINE_BYTES } from './json-lines';

export { InputError, type Skip } from './input-error';

const JSON_LINES = new Set(['.jsonl', '.ndjson']);

export interface SourceOptions {
  /** Each bad input, once; the source goes on with the next. */
  onError: (e: InputError) => void;
  /** Each input not fed on purpose. */
  onSkip?: (s: Skip) => void;
  /** Feed files detected as binary (images, archives, ...) instead of skipping them. */
  includeBinary?: boolean;
  /**
   * Files larger than this are not read at all, not even to detect their type: they go to the client as they are,
   * which fails them with document_too_large naming the limit.
   */
  maxDocumentBytes?: number;
  /** What "-" reads (default process.stdin). */
  stdin?: Readable;
  maxLineBytes?: number;
  maxJsonDepth?: number;
}

/**
 * Every document of the inputs, in order: "-" is JSON lines on stdin; .jsonl/.ndjson files are JSON lines; other
 * files are one document each, their bytes read only when the document is sent; directories are walked (sorted,
 * hidden entries skipped).
 *
 * A file's id is its path as given joined with the path below it, normalized: `a/` and `b/` both holding index.html
 * give `a/index.html` and `b/index.html`. A repeated id (two JSON lines, a file given twice) is an input error and
 * is not fed. Each real file is fed once, whatever links lead to it; a link to a directory that contains the
 * directory it is in would loop and is an input error, as are dangling links, unreadable files and directories,
 * FIFOs and devices, and bad JSON lines. None of them stops the walk.
 */
export async function* documents(inputs: string[], options: SourceOptions): AsyncGenerator<FeedDocument> {
  const { onError } = options;
  const onSkip = options.onSkip ?? (() => undefined);
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const maxJsonDepth = options.maxJsonDepth ?? MAX_JSON_DEPTH;
  /** id → where it was first seen */
  const ids = new Map<string, string>();
  /** real path of a file → the id it was fed (or read) as */
  const files = new Map<string, string>();

  const claim = (id: string, where: string): boolean => {
    const first = ids.get(id);
    if (first === undefined) {
      ids.set(id, where);
      return true;
    }
    onError(new InputError(`${where}: id ${JSON.stringify(id)} repeated, first at ${first}; not fed`));
    return false;
  };

  async function* jsonLines(input: Readable, name: string): AsyncGenerator<FeedDocument> {
    const ready: FeedDocument[] = [];
    let lines = 0;
    const splitter = new LineSplitter(maxLineBytes, (e) => {
      lines = e.n;
      const where = `${name}:${e.n}`;
      if ('tooLong' in e) return onError(new InputError(`${where}: line of ${e.tooLong} bytes, more than ${maxLineBytes}`));
      if (!e.line.trim()) return;
      let doc: FeedDocument;
      try {
        doc = documentFromJson(e.line, where, maxJsonDepth);
      } catch (err) {
        return onError(err instanceof InputError ? err : new InputError(`${where}: ${(err as Error).message}`, { cause: err }));
      }
      if (claim(doc.id, where)) ready.push(doc);
    });
    try {
      for await (const chunk of input) {
        splitter.parse(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array));
        yield* ready.splice(0);
      }
      splitter.end();
      yield* ready.splice(0);
    } catch (err) {
      onError(new InputError(`${name}: reading stopped after line ${lines}: ${(err as Error).message}`, { cause: err }));
    }
  }

  async function* file(path: string, st: Stats, real: string): AsyncGenerator<FeedDocument> {
    if (!claim(path, path)) return;
    const first = files.get(real);
    if (first !== undefined) return onSkip({ id: path, reason: 'same file', sameAs: first });
    files.set(real, path);
    if (options.maxDocumentBytes !== undefined && st.size > options.maxDocumentBytes) {
      yield { id: path, attributes: { url: pathToFileURL(resolve(path)).href }, content: { size: st.size, open: () => createReadStream(real) } };
      return;
    }
    let head: Uint8Array;
    try {
      head = await readHead(real);
    } catch (err) {
      return onError(new InputError(`${path}: cannot read: ${(err as Error).message}`, { cause: err }));
    }
    const type = await detectType(head, path);
    if (type.binary && !options.includeBinary) return onSkip({ id: path, reason: type.binary });
    yield {
      id: path,
      attributes: { url: pathToFileURL(resolve(path)).href, content_type: type.contentType },
      content: { size: st.size, open: () => createReadStream(real) },
    };
  }

  /** `dirs`: the real paths of the directories this walk is in, outermost first. */
  async function* walk(path: string, dirs: string[]): AsyncGenerator<FeedDocument> {
    let st: Stats;
    let real: string;
    try {
      st = await stat(path);
      real = await realpath(path);
    } catch (err) {
      return onError(await unreachable(path, err as NodeJS.ErrnoException));
    }
    if (st.isDirectory()) {
      const around = dirs.find((d) => d === real || d.startsWith(real.endsWith(sep) ? real : real + sep));
      if (around !== undefined) {
        const where = around === real ? 'a directory it is in' : `which contains ${around}, a directory it is in`;
        return onError(new InputError(`${path}: a link to ${real}, ${where}: a loop, not followed`));
      }
      let entries: string[];
      try {
        entries = (await readdir(path)).sort((a, b) => a.localeCompare(b));
      } catch (err) {
        return onError(new InputError(`${path}: cannot read the directory: ${(err as Error).message}`, { cause: err }));
      }
      const inside = [...dirs, real];
      for (const name of entries) {
        if (name.startsWith('.')) onSkip({ id: join(path, name), reason: 'hidden' });
        else yield* walk(join(path, name), inside);
      }
      return;
    }
    if (!st.isFile()) return onError(new InputError(`${path}: not a regular file or directory (${kind(st)})`));
    if (!JSON_LINES.has(extname(path).toLowerCase())) return yield* file(path, st, real);
    const first = files.get(real);
    if (first !== undefined) return onSkip({ id: path, reason: 'same file', sameAs: first });
    files.set(real, path);
    yield* jsonLines(createReadStream(real), path);
  }

  for (const input of inputs) {
    if (input === '-') yield* jsonLines(options.stdin ?? process.stdin, 'stdin');
    else yield* walk(inputPath(input), []);
  }
}

/** A path as given, normalized: no "./", no "//", no trailing separator. */
export function inputPath(input: string): string {
  const p = normalize(input);
  return p.length > 1 && p.endsWith(sep) ? p.slice(0, -1) : p;
}

async function readHead(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = new Uint8Array(HEAD_BYTES);
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, HEAD_BYTES - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === HEAD_BYTES) break;
    }
    return buf.subarray(0, n);
  } finally {
    await fh.close();
  }
}

/** Why stat failed, said for people: a dangling link names its target. */
async function unreachable(path: string, err: NodeJS.ErrnoException): Promise<InputError> {
  if (err.code === 'ENOENT') {
    const target = await lstat(path)
      .then((l) => (l.isSymbolicLink() ? readlink(path) : undefined))
      .catch(() => undefined);
    if (target !== undefined) return new InputError(`${path}: dangling symbolic link to ${target}`, { cause: err });
    return new InputError(`${path}: no such file or directory`, { cause: err });
  }
  if (err.code === 'ELOOP') return new InputError(`${path}: symbolic links in a loop`, { cause: err });
  return new InputError(`${path}: ${err.message}`, { cause: err });
}

function kind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'unknown kind';
}
