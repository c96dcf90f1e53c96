import { integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';
import { DEFAULT_MAX_BODY_BYTES } from './crawler';
import { DEFAULT_WARC_FILE_BYTES } from './warc-writer';

export const HELP = `Usage: node-scheduler --id <node id> [options]

MS-FSCMT node scheduler on the NATS crawl cluster (address ns/<id>): registers with the multinode scheduler,
crawls the sites routed to it over HTTP(S) (robots.txt, politeness delay, limits of the crawl configuration),
de-duplicates content with a duplicate server and feeds the pages it owns into the feeding chain.

A refresh (CMD_ADM_CONF_REFRESH, or the collection's "refresh" interval in minutes) starts a crawl round: the pages
fetched before are asked for again with If-None-Match / If-Modified-Since; a 304 costs nothing more, a changed page
is fed again, a page gone (404, 410) or no longer allowed is deleted from the index. Pages are asked for with
Accept-Encoding gzip, deflate, br and decompressed.

Options:
  --nats <url>            NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --cluster <name>        crawl cluster name on NATS (default: default)
  --id <node id>          this node scheduler's id
  --mns <id>              the multinode scheduler's id (default: main)
  --dup <id>              the duplicate server's id (default: none, every page owns its content)
  --dup-replica <id>      the duplicate server's replica: it serves once the primary is taken for dead
  --dup-dead-ms <ms>      the primary is dead when operations waited this long with no word from it (default: 10000)
  --dup-timeout-ms <ms>   a PPDUP_ADD unanswered this long is sent again, 5 times at most (default: 60000)
  --no-feed               crawl without feeding (no feeding chain needed)
  --ip-key <ip|ip-port>   crawl permissions per IP (the spec) or per IP and port (several test sites on one
                          loopback IP) (default: ip)
  --user-agent <name>     User-Agent and robots.txt agent name (default: esp-crawler)
  --concurrency <n>       fetches in flight at most, one per site (default: 16)
  --max-body-bytes <n>    a page's body at most, after decompression; larger pages are not fed and are counted
                          as excluded_size (default: 10485760, 10 MiB)
  --warc <dir>            archive every page read (2xx) as WARC 1.1 request + response records, gzip per record,
                          in <dir>/<id>-<time>-<n>.warc.gz (default: no archive)
  --warc-max-bytes <n>    a WARC file is closed past this size, the next one opened (default: 1000000000)
  --keepalive-ms <ms>     keep-alive interval (default: 120000)
  --stats-ms <ms>         CMD_UM_STAT interval (default: 60000)
  --data <dir>            keep the crawl state in <dir>/node-<id>.sqlite (queues, seen URIs, forwarded links, owned
                          and duplicate pages, ETag / Last-Modified, robots.txt rules, sitemaps read), written before
                          it is acted on, so that a restart with the same id and directory resumes the crawl, after
                          kill -9 too: only the pages in flight are fetched again (default: none, the state lives in
                          memory and a restarted node starts empty)
  -h, --help              show this help
`;

export type Cli = CliResult<{
  nats: string[];
  cluster: string;
  nodeId: string;
  mns: string;
  dup: string | undefined;
  dupReplica: string | undefined;
  dupDeadMs: number;
  dupTimeoutMs: number;
  feed: boolean;
  ipKey: 'ip' | 'ip-port';
  userAgent: string;
  concurrency: number;
  maxBodyBytes: number;
  warc: string | undefined;
  warcMaxBytes: number;
  keepaliveMs: number;
  statsMs: number;
  dataDir: string | undefined;
}>;

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      cluster: { type: 'string' },
      id: { type: 'string' },
      mns: { type: 'string' },
      dup: { type: 'string' },
      'dup-replica': { type: 'string' },
      'dup-dead-ms': { type: 'string' },
      'dup-timeout-ms': { type: 'string' },
      'no-feed': { type: 'boolean' },
      'ip-key': { type: 'string' },
      'user-agent': { type: 'string' },
      concurrency: { type: 'string' },
      'max-body-bytes': { type: 'string' },
      warc: { type: 'string' },
      'warc-max-bytes': { type: 'string' },
      'keepalive-ms': { type: 'string' },
      'stats-ms': { type: 'string' },
      data: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  if (!values.id) return { kind: 'error', message: '--id is required' };
  const ipKey = values['ip-key'] ?? 'ip';
  if (ipKey !== 'ip' && ipKey !== 'ip-port') return { kind: 'error', message: `--ip-key must be ip or ip-port, got "${ipKey}"` };
  const concurrency = integerOption('concurrency', values.concurrency, 16, 1, 1000);
  if (typeof concurrency === 'string') return { kind: 'error', message: concurrency };
  const maxBodyBytes = integerOption('max-body-bytes', values['max-body-bytes'], DEFAULT_MAX_BODY_BYTES, 1024, 2 ** 31 - 1);
  if (typeof maxBodyBytes === 'string') return { kind: 'error', message: maxBodyBytes };
  const warcMaxBytes = integerOption('warc-max-bytes', values['warc-max-bytes'], DEFAULT_WARC_FILE_BYTES, 4096, Number.MAX_SAFE_INTEGER);
  if (typeof warcMaxBytes === 'string') return { kind: 'error', message: warcMaxBytes };
  if (values['warc-max-bytes'] !== undefined && values.warc === undefined) return { kind: 'error', message: '--warc-max-bytes needs --warc' };
  const keepaliveMs = integerOption('keepalive-ms', values['keepalive-ms'], 120_000, 10, 86_400_000);
  if (typeof keepaliveMs === 'string') return { kind: 'error', message: keepaliveMs };
  if (values['dup-replica'] !== undefined && values.dup === undefined) return { kind: 'error', message: '--dup-replica needs --dup' };
  const dupDeadMs = integerOption('dup-dead-ms', values['dup-dead-ms'], 10_000, 100, 86_400_000);
  if (typeof dupDeadMs === 'string') return { kind: 'error', message: dupDeadMs };
  const dupTimeoutMs = integerOption('dup-timeout-ms', values['dup-timeout-ms'], 60_000, 100, 86_400_000);
  if (typeof dupTimeoutMs === 'string') return { kind: 'error', message: dupTimeoutMs };
  const statsMs = integerOption('stats-ms', values['stats-ms'], 60_000, 10, 86_400_000);
  if (typeof statsMs === 'string') return { kind: 'error', message: statsMs };
  return {
    kind: 'run',
    nats: natsServers(values.nats, env),
    cluster: values.cluster ?? 'default',
    nodeId: values.id,
    mns: values.mns ?? 'main',
    dup: values.dup,
    dupReplica: values['dup-replica'],
    dupDeadMs,
    dupTimeoutMs,
    feed: !values['no-feed'],
    ipKey,
    userAgent: values['user-agent'] ?? 'esp-crawler',
    concurrency,
    maxBodyBytes,
    warc: values.warc,
    warcMaxBytes,
    keepaliveMs,
    statsMs,
    dataDir: values.data,
  };
}
