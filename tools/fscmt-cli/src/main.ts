/**
 * fscmt: FSCMT frames <-> JSON lines, losslessly.
 *
 *   npm run -s fscmt -- decode < capture.bin > messages.jsonl
 *   npm run -s fscmt -- encode < messages.jsonl > capture.bin   # the same bytes again
 *   npm run -s fscmt -- --help                                   # the line format
 */
import { once } from 'node:events';
import { CodecError, encodeFscmtFrame, FSCMT_DEFAULT_MAX_FRAME_BYTES, FscmtFrameParser } from '@esp/codecs';
import { HELP } from './help';
import { lineToMessage, messageToLine, MessageLineError } from './message-line';

class UsageError extends Error {
  override name = 'UsageError';
}

interface Options {
  command: 'decode' | 'encode' | 'help';
  maxFrameBytes: number;
}

function parseArgs(args: string[]): Options {
  let command: Options['command'] | undefined;
  let maxFrameBytes = FSCMT_DEFAULT_MAX_FRAME_BYTES;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h' || arg === 'help') command = 'help';
    else if (arg === 'decode' || arg === 'encode') command ??= arg;
    else if (arg === '--max-frame-bytes' || arg?.startsWith('--max-frame-bytes=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i];
      const n = Number(value);
      if (!Number.isSafeInteger(n) || n < 0 || n > 0xffffffff) throw new UsageError(`bad --max-frame-bytes ${String(value)}`);
      maxFrameBytes = n;
    } else throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (command === undefined) throw new UsageError('say decode or encode');
  return { command, maxFrameBytes };
}

async function write(data: string | Uint8Array): Promise<void> {
  if (!process.stdout.write(data)) await once(process.stdout, 'drain');
}

async function decode(options: Options): Promise<void> {
  let lines: string[] = [];
  const parser = new FscmtFrameParser((m) => lines.push(messageToLine(m.dict, m.priority)), {
    maxFrameBytes: options.maxFrameBytes,
  });
  const flush = async (): Promise<void> => {
    if (lines.length === 0) return;
    const text = `${lines.join('\n')}\n`;
    lines = [];
    await write(text);
  };
  try {
    for await (const chunk of process.stdin) {
      parser.parse(chunk as Uint8Array);
      await flush();
    }
    parser.end();
  } finally {
    // The messages before a bad frame are good; write them before the error is reported.
    await flush();
  }
}

async function encode(options: Options): Promise<void> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let pending: Uint8Array = new Uint8Array(0);
  let pendingOffset = 0;
  let lineNumber = 0;

  const encodeLine = (bytes: Uint8Array, offset: number): Uint8Array | undefined => {
    lineNumber++;
    try {
      const text = utf8.decode(bytes).trim();
      if (text === '') return undefined;
      const { dict, priority } = lineToMessage(text);
      return encodeFscmtFrame(dict, priority, { maxFrameBytes: options.maxFrameBytes });
    } catch (err) {
      const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      throw new MessageLineError(`line ${lineNumber}: ${reason}`, { offset, cause: err });
    }
  };

  for await (const chunk of process.stdin) {
    const data = concat(pending, chunk as Uint8Array);
    const frames: Uint8Array[] = [];
    let start = 0;
    try {
      for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
        const frame = encodeLine(data.subarray(start, nl), pendingOffset + start);
        if (frame !== undefined) frames.push(frame);
        start = nl + 1;
      }
    } finally {
      // Frames of the good lines before a bad one are written before the error is reported, as decode does.
      if (frames.length > 0) await write(concat(...frames));
    }
    pending = data.slice(start);
    pendingOffset += start;
  }
  const last = encodeLine(pending, pendingOffset);
  if (last !== undefined) await write(last);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function main(args: string[]): Promise<number> {
  let options: Options;
  try {
    options = parseArgs(args);
  } catch (err) {
    process.stderr.write(`fscmt: ${err instanceof Error ? err.message : String(err)}\n\n${HELP}`);
    return 2;
  }
  if (options.command === 'help') {
    await write(HELP);
    return 0;
  }
  try {
    await (options.command === 'decode' ? decode(options) : encode(options));
    return 0;
  } catch (err) {
    if (!(err instanceof CodecError)) throw err;
    // CodecError messages end with "(at byte offset N)" whenever there is an offset to give.
    process.stderr.write(`fscmt ${options.command}: ${err.name}: ${err.message}\n`);
    return 1;
  }
}

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // A closed pipe (`| head`) is the reader's choice, not a failure.
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

process.exitCode = await main(process.argv.slice(2));
