import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult, STACK_HELP, STACK_OPTIONS, waitForNatsMs } from '@esp/cli-options';
import type { SearchHit } from '@esp/interfaces';

export const HELP = `Usage: npm run -s search -- "<query>" [options]

Full-text search of what the indexer holds (indexing::search, bound at esp/subsystems/indexing/search).
Words are ANDed, "quoted words" are a phrase, a word ending in * is a prefix (storm*). Anything else is
just text: OR, NOT, title:x and the like are searched as words. Hits are ranked by bm25, title words count most.

Options:
  -c, --collection <name>   collection to search (default: default)
  -n, --limit <n>           hits to show, 1 to 1000 (default: 10)
      --offset <n>          hits to skip first (default: 0)
      --json                print one JSON object: { query, collection, total, offset, hits: [{ rank, score, id, title, snippet }] }
  -v, --verbose             say on stderr which home and NATS server the search used
  -h, --help                show this help

In the snippets, [brackets] mark the words that matched.
Exit status: 0 on success (with or without hits), 1 when the search failed (no indexer, unknown collection, a query
without any word), 2 on a usage error.

${STACK_HELP}
${NATS_SECURITY_HELP}`;

export interface SearchOptions {
  query: string;
  collection: string;
  limit: number;
  offset: number;
  nats: string[];
  security: NatsSecurity;
  json: boolean;
  verbose: boolean;
  /** How long to wait for the first connection to NATS (ms). */
  waitForNatsMs: number;
}

export type Cli = CliResult<SearchOptions>;


export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      collection: { type: 'string', short: 'c' },
      limit: { type: 'string', short: 'n' },
      offset: { type: 'string' },
      ...STACK_OPTIONS,
      ...NATS_SECURITY_OPTIONS,
      json: { type: 'boolean' },
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  if (positionals.length === 0) return { kind: 'error', message: 'say what to search for: search "<query>"' };
  const query = positionals.join(' ');
  if (query.trim() === '') return { kind: 'error', message: 'the query is empty' };
  const limit = integerOption('limit', values.limit, 10, 1, 1000);
  if (typeof limit === 'string') return { kind: 'error', message: limit };
  const offset = integerOption('offset', values.offset, 0, 0, 1_000_000_000);
  if (typeof offset === 'string') return { kind: 'error', message: offset };
  const collection = values.collection ?? 'default';
  if (collection.trim() === '') return { kind: 'error', message: '--collection must name a collection' };
  const nats = natsServers(values.nats, env);
  const waitMs = waitForNatsMs(values['wait-for-nats']);
  if (typeof waitMs === 'string') return { kind: 'error', message: waitMs };
  return { kind: 'run', query, collection, limit, offset, nats, security, json: values.json ?? false, verbose: values.verbose ?? false, waitForNatsMs: waitMs };
}

export interface SearchResult {
  total: number;
  hits: SearchHit[];
}

/** One line per hit: rank, score, id, title; the snippet indented below. */
export function formatText(opts: SearchOptions, r: SearchResult): string {
  const n = r.hits.length;
  const head =
    r.total === 0
      ? `no hits for ${JSON.stringify(opts.query)} in ${opts.collection}`
      : `${r.total} hit${r.total === 1 ? '' : 's'} for ${JSON.stringify(opts.query)} in ${opts.collection}` +
        (n === 0 ? ` (none at offset ${opts.offset})` : n < r.total ? `, showing ${opts.offset + 1}-${opts.offset + n}` : '');
  const width = String(opts.offset + n).length;
  const lines = [head];
  r.hits.forEach((h, i) => {
    const rank = String(opts.offset + i + 1).padStart(width);
    lines.push(`${rank}. ${h.score.toFixed(3)}  ${h.id}${h.title ? `  ${oneLine(h.title)}` : ''}`);
    if (h.snippet) lines.push(`${' '.repeat(width + 2)}${oneLine(h.snippet)}`);
  });
  return `${lines.join('\n')}\n`;
}

export function formatJson(opts: SearchOptions, r: SearchResult): string {
  const hits = r.hits.map((h, i) => ({ rank: opts.offset + i + 1, score: h.score, id: h.id, title: h.title, snippet: h.snippet }));
  return `${JSON.stringify({ query: opts.query, collection: opts.collection, total: r.total, offset: opts.offset, hits })}\n`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
