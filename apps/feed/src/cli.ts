import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult, STACK_HELP, STACK_OPTIONS, waitForNatsMs } from '@esp/cli-options';

export const HELP = `Usage: npm run feed -- --collection <name> [options] <file | dir | -> ...

Feeds documents into a collection through the content distributor and reports the fate of every one.

Inputs:
  <file.jsonl|.ndjson>    one document per line: {"id": "...", "attributes": {...}} or a flat object
                          {"id": "...", "title": "...", "body": "..."}; {"id": "...", "remove": true} deletes
  <file>                  any other file is one document: id = its path as given, attributes url and
                          content_type (from its first bytes and its extension); its bytes are read only when
                          sent (inline up to --inline-max-bytes, else through the object store)
  <dir>                   every file below it (id = the directory as given joined with the path below it);
                          hidden entries are skipped, each real file is fed once whatever links point to it
  -                       JSON lines on stdin

  Files no stage can index (images, fonts, audio, video, archives, executables, other binary files) are skipped
  and counted by type; --include-binary sends them anyway. Bad inputs (dangling links, link loops, unreadable
  files, bad or too deeply nested JSON lines, repeated ids) are input errors: listed, not fed, the run goes on.

Options:
  -c, --collection <name> collection to feed (required)
  --batch-size <n>        operations per batch (default: 100)
  --batch-bytes <size>    bytes per batch at most (default and upper bound: the connection's max_payload)
  --inline-max-bytes <size>
                          content over this size goes to the object store (default: 256k)
  --max-document-bytes <size>
                          a document with more content fails alone with document_too_large (default: 100m)
  --include-binary        send files detected as binary (images, archives, ...) instead of skipping them
  --max-in-flight <n>     operations without a final status at most (default: 20 batches)
  --limited-resubmits <n> resubmissions when an error suggests limited_resubmit (default: 3)
  --max-resubmits <n>     resubmissions of lost operations (suggested action resubmit) (default: 10)
  --timeout <s>           how long to wait for the last final statuses (default: 600)
  --report <file>         write the final report as JSON (every failed document with its error, input errors,
                          skipped files by reason, peak RSS)
  --quiet                 no progress bar
  -h, --help              show this help

Sizes are bytes, or with a suffix k, m, g (KiB, MiB, GiB): 256k, 100m.

What happens to each document: the distributor says "received", the indexer "secured" (on disk) and then the final
status: completed (searchable), or failed with the error of the stage that refused it (for example utf8_error,
xml_error, operation_dropped). Operations lost by a dead item processor come back as lost with the suggested action
"resubmit" and are fed again automatically. The exit code is 0 when every document completed, 1 when any failed or
has no final status or there was an input error, 2 for bad usage. Skipped files do not change the exit code.

${STACK_HELP}
${NATS_SECURITY_HELP}`;

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
const SIZE_UNITS: Record<string, number> = { '': 1, k: KiB, m: MiB, g: GiB };

/**
 * A size option in [min, max]: bytes, or a number with a suffix k, m or g (binary: 256k = 262144; "kb", "kib" and
 * upper case are accepted too). `dflt` when absent. Returns the number, or the error message to show.
 */
export function sizeOption<D extends number | undefined>(name: string, raw: string | undefined, dflt: D, min: number, max: number): number | D | string {
  if (raw === undefined) return dflt;
  const m = /^(\d+(?:\.\d+)?)\s*(?:([kmg])(?:i?b)?|b)?$/i.exec(raw.trim());
  const n = m ? Math.round(Number(m[1]) * (SIZE_UNITS[(m[2] ?? '').toLowerCase()] ?? NaN)) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) return `--${name} must be a size from ${min} to ${max} bytes (suffix k, m or g allowed), got "${raw}"`;
  return n;
}

export interface FeedCli {
  kind: 'run';
  collection: string;
  inputs: string[];
  nats: string[];
  security: NatsSecurity;
  /** How long to wait for the first connection to NATS (ms). */
  waitForNatsMs: number;
  batchSize: number;
  batchBytes: number | undefined;
  inlineMaxBytes: number;
  maxDocumentBytes: number;
  includeBinary: boolean;
  maxInFlight: number | undefined;
  limitedResubmits: number;
  maxResubmits: number;
  timeoutS: number;
  report: string | undefined;
  quiet: boolean;
}

export type Cli = CliResult<Omit<FeedCli, 'kind'>>;

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      collection: { type: 'string', short: 'c' },
      ...STACK_OPTIONS,
      ...NATS_SECURITY_OPTIONS,
      'batch-size': { type: 'string' },
      'batch-bytes': { type: 'string' },
      'inline-max-bytes': { type: 'string' },
      'max-document-bytes': { type: 'string' },
      'include-binary': { type: 'boolean' },
      'max-in-flight': { type: 'string' },
      'limited-resubmits': { type: 'string' },
      'max-resubmits': { type: 'string' },
      timeout: { type: 'string' },
      report: { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  if (!values.collection) return { kind: 'error', message: '--collection is required' };
  if (positionals.length === 0) return { kind: 'error', message: 'no input: give files, directories or - for stdin' };
  const batchSize = integerOption('batch-size', values['batch-size'], 100, 1, 10_000);
  const maxInFlight = integerOption('max-in-flight', values['max-in-flight'], undefined, 1, 10_000_000);
  const limitedResubmits = integerOption('limited-resubmits', values['limited-resubmits'], 3, 0, 1000);
  const maxResubmits = integerOption('max-resubmits', values['max-resubmits'], 10, 0, 1000);
  const timeoutS = integerOption('timeout', values.timeout, 600, 1, 86_400);
  const batchBytes = sizeOption('batch-bytes', values['batch-bytes'], undefined, 1024, GiB);
  const inlineMaxBytes = sizeOption('inline-max-bytes', values['inline-max-bytes'], 256 * KiB, 0, GiB);
  const maxDocumentBytes = sizeOption('max-document-bytes', values['max-document-bytes'], 100 * MiB, 1, 1024 * GiB);
  const waitMs = waitForNatsMs(values['wait-for-nats']);
  for (const v of [batchBytes, inlineMaxBytes, maxDocumentBytes, waitMs]) if (typeof v === 'string') return { kind: 'error', message: v };
  for (const v of [batchSize, maxInFlight, limitedResubmits, maxResubmits, timeoutS]) if (typeof v === 'string') return { kind: 'error', message: v };
  return {
    kind: 'run',
    collection: values.collection,
    inputs: positionals,
    nats: natsServers(values.nats, env),
    security,
    waitForNatsMs: waitMs as number,
    batchSize: batchSize as number,
    batchBytes: batchBytes as number | undefined,
    inlineMaxBytes: inlineMaxBytes as number,
    maxDocumentBytes: maxDocumentBytes as number,
    includeBinary: values['include-binary'] ?? false,
    maxInFlight: maxInFlight as number | undefined,
    limitedResubmits: limitedResubmits as number,
    maxResubmits: maxResubmits as number,
    timeoutS: timeoutS as number,
    report: values.report,
    quiet: values.quiet ?? false,
  };
}
