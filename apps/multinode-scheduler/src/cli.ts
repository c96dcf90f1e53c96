import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';

export const HELP = `Usage: multinode-scheduler [--config <crawl.xml> ...] [--config-dir <dir>] [options]

MS-FSCMT multinode scheduler on the NATS crawl cluster (address mns/<id>): registers node schedulers
(CMD_UM_INIT), sends them the crawl collections, routes crawl sites to them, resolves DNS for them, and grants
per-IP crawl permissions.

Options:
  --nats <url>            NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --cluster <name>        crawl cluster name on NATS (default: default)
  --id <name>             this scheduler's id (default: main)
  --config <file>         XML crawl configuration (CrawlerConfig / DomainSpecification), repeatable
  --config-dir <dir>      every *.xml file in <dir> is a crawl configuration too (created when missing); the
                          admin API (npm run crawl) writes a collection's crawl there as <dir>/<collection>.xml
  --config-service        a collection the admin API creates is first added to the config server's collections
                          (fds/configservice, through the name server), so the feeding chain takes its pages
  --dns-ttl <s>           how long a DNS answer is used (default: 3600)
  --keepalive-ms <ms>     keep-alive interval (default: 120000)
  --max-sites-per-ip <n>  sites crawled at once on one IP (default: 10)
  --min-nodes <n>         route nothing until this many node schedulers registered (default: 1)
  --max-missed-keepalives <n>
                          drop a node scheduler that left this many keep-alives in a row unanswered: its sites
                          go to the live nodes (default: 3)
  --settle-ms <ms>        a crawl is done when nothing is queued here and every node reported nothing queued or
                          in flight for this long, twice at least (default: 3000; the nodes report every
                          --stats-ms)
  --data <dir>            keep the state (collections, queued entries, routes, IP permissions, DNS answers) in
                          <dir>/scheduler.sqlite and take it back at start, so kill -9 loses nothing answered
                          (default: none, the state is in memory only)
  -h, --help              show this help

${NATS_SECURITY_HELP}`;

export type Cli = CliResult<{ nats: string[]; security: NatsSecurity; cluster: string; id: string; configs: string[]; configDir: string | undefined; configService: boolean; dnsTtlS: number; keepaliveMs: number; maxSitesPerIp: number; minNodes: number; maxMissedKeepalives: number; settleMs: number; dataDir: string | undefined }>;

export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      cluster: { type: 'string' },
      id: { type: 'string' },
      config: { type: 'string', multiple: true },
      'config-dir': { type: 'string' },
      'config-service': { type: 'boolean' },
      'dns-ttl': { type: 'string' },
      'keepalive-ms': { type: 'string' },
      'max-sites-per-ip': { type: 'string' },
      'min-nodes': { type: 'string' },
      'max-missed-keepalives': { type: 'string' },
      data: { type: 'string' },
      'settle-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  const dnsTtlS = integerOption('dns-ttl', values['dns-ttl'], 3600, 0, 7 * 86400);
  if (typeof dnsTtlS === 'string') return { kind: 'error', message: dnsTtlS };
  const keepaliveMs = integerOption('keepalive-ms', values['keepalive-ms'], 120_000, 10, 86_400_000);
  if (typeof keepaliveMs === 'string') return { kind: 'error', message: keepaliveMs };
  const maxSitesPerIp = integerOption('max-sites-per-ip', values['max-sites-per-ip'], 10, 1, 10_000);
  if (typeof maxSitesPerIp === 'string') return { kind: 'error', message: maxSitesPerIp };
  const minNodes = integerOption('min-nodes', values['min-nodes'], 1, 1, 10_000);
  if (typeof minNodes === 'string') return { kind: 'error', message: minNodes };
  const maxMissedKeepalives = integerOption('max-missed-keepalives', values['max-missed-keepalives'], 3, 1, 10_000);
  if (typeof maxMissedKeepalives === 'string') return { kind: 'error', message: maxMissedKeepalives };
  const settleMs = integerOption('settle-ms', values['settle-ms'], 3000, 0, 86_400_000);
  if (typeof settleMs === 'string') return { kind: 'error', message: settleMs };
  return { kind: 'run', nats: natsServers(values.nats, env), security, cluster: values.cluster ?? 'default', id: values.id ?? 'main', configs: values.config ?? [], configDir: values['config-dir'], configService: values['config-service'] ?? false, dnsTtlS, keepaliveMs, maxSitesPerIp, minNodes, maxMissedKeepalives, settleMs, dataDir: values.data };
}
