import { integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';

export const HELP = `Usage: npm run feed -- --collection <name> [options] <file | dir | -> ...

Feeds documents into a collection through the content distributor and reports the fate of every one.

Inputs:
  <file.jsonl|.ndjson>    one document per line: {"id": "...", "attributes": {...}} or a flat object
                          {"id": "...", "title": "...", "body": "..."}; {"id": "...", "remove": true} deletes
  <file>                  any other file is one document: id = its path, attributes url, body (its bytes) and
                          content_type from the extension (.html .htm .xml .txt ...)
  <dir>                   every file below it
  -                       JSON lines on stdin

Options:
  --collection <name>     collection to feed (required)
  --nats <url>            NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --batch-size <n>        operations per batch (default: 100)
  --max-in-flight <n>     operations without a final status at most (default: 20 batches)
  --limited-resubmits <n> resubmissions when an error suggests limited_resubmit (default: 3)
  --max-resubmits <n>     resubmissions of lost operations (suggested action resubmit) (default: 10)
  --timeout <s>           how long to wait for the last final statuses (default: 600)
  --report <file>         write the final report as JSON (every failed document with its error)
  --quiet                 no progress bar
  -h, --help              show this help

What happens to each document: the distributor says "received", the indexer "secured" (on disk) and then the final
status: completed (searchable), or failed with the error of the stage that refused it (for example utf8_error,
xml_error, operation_dropped). Operations lost by a dead item processor come back as lost with the suggested action
"resubmit" and are fed again automatically. The exit code is 0 when every document completed, 1 when any failed or
has no final status, 2 for bad usage.
`;

export interface FeedCli {
  kind: 'run';
  collection: string;
  inputs: string[];
  nats: string[];
  batchSize: number;
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
      collection: { type: 'string' },
      nats: { type: 'string' },
      'batch-size': { type: 'string' },
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
  if (!values.collection) return { kind: 'error', message: '--collection is required' };
  if (positionals.length === 0) return { kind: 'error', message: 'no input: give files, directories or - for stdin' };
  const batchSize = integerOption('batch-size', values['batch-size'], 100, 1, 10_000);
  const maxInFlight = integerOption('max-in-flight', values['max-in-flight'], undefined, 1, 10_000_000);
  const limitedResubmits = integerOption('limited-resubmits', values['limited-resubmits'], 3, 0, 1000);
  const maxResubmits = integerOption('max-resubmits', values['max-resubmits'], 10, 0, 1000);
  const timeoutS = integerOption('timeout', values.timeout, 600, 1, 86_400);
  for (const v of [batchSize, maxInFlight, limitedResubmits, maxResubmits, timeoutS]) if (typeof v === 'string') return { kind: 'error', message: v };
  return {
    kind: 'run',
    collection: values.collection,
    inputs: positionals,
    nats: natsServers(values.nats, env),
    batchSize: batchSize as number,
    maxInFlight: maxInFlight as number | undefined,
    limitedResubmits: limitedResubmits as number,
    maxResubmits: maxResubmits as number,
    timeoutS: timeoutS as number,
    report: values.report,
    quiet: values.quiet ?? false,
  };
}
