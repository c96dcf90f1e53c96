import { NATS_SECURITY_HELP, NATS_SECURITY_OPTIONS, natsSecurity, type NatsSecurity, integerOption, natsServers, tryParseArgs, type CliResult } from '@esp/cli-options';
import { DEFAULT_LEASE_TIMEOUT_SECONDS, DEFAULT_REREGISTRATION_LEASE_SECONDS } from '@esp/interfaces';

export const HELP = `Usage: item-processor [options]

Registers with the content distributor (MS-FSDPD 3.4.3), runs each batch it sends through the collection's
pipeline of stages, forwards the result to the indexing session and reports processed. Serves the Status
interface (MS-FSDPD 3.7) over XML-RPC at http://<host>:<status-port>/RPC2.

Options:
  --nats <url>                 NATS server URL(s), comma separated (default: $NATS_URL or nats://127.0.0.1:4222)
  --name <name>                item processing component identifier (default: procserver_<host>_<pid>)
  --host <host>                host name in the AOR and the status URL (default: this machine's hostname)
  --status-port <port>         Status XML-RPC port; 0 picks a free one, logged at start (default: 0)
  --status-listen <address>    address the Status server listens on (default: 127.0.0.1; 0.0.0.0 for every interface)
  --pipeline-config <file>     JSON pipeline configuration (default: detect, charset, pdf, docx, utf8, xml, html, title, normalize)
  --config-server <url>        config server XML-RPC URL (http://host:port/RPC2): register there (ProcessorServer) and
                               take pipelines and collections from it, again on every ConfigurationChanged;
                               --pipeline-config is then the fallback when it has no DocumentProcessor/pipelines.json
  --base-port <port>           installation base port; processor_server is on base + 390 (default: 16000)
  --reregistration-lease <s>   Reregistration Lease in seconds, decimals allowed (default: ${DEFAULT_REREGISTRATION_LEASE_SECONDS})
  --lease-seconds <n>          Lease Timeout asked of the content distributor (procserver_handler::renew, every
                               third of it) while a batch runs, MS-FSDPD 3.5.4.4 (default: ${DEFAULT_LEASE_TIMEOUT_SECONDS})
  --heartbeat-ms <n>           PPP heartbeat interval towards the content distributor (default: 1000)
  --max-document-bytes <n>     content fetched from the object store over this size fails its item with
                               document_too_large (default: 104857600, 100 MiB)
  --inline-max-bytes <n>       a processed attribute over this size goes to the indexer through the object store
                               (default: 262144, 256 KiB)
  --wait                       keep retrying until NATS is reachable instead of failing at once
  -h, --help                   show this help

Logs "ready" with { name, status_url } once registered. SIGTERM / SIGINT: unregister (procserver_handler,
then master_dispatcher), finish the batch in flight, drain, exit 0. The Status method Shutdown does the same.

${NATS_SECURITY_HELP}`;

export interface RunOptions {
  nats: string[];
  security: NatsSecurity;
  name: string | undefined;
  host: string | undefined;
  statusPort: number;
  statusListen: string;
  pipelineConfig: string | undefined;
  configServer: string | undefined;
  basePort: number;
  reregistrationLeaseMs: number;
  leaseSeconds: number;
  heartbeatMs: number;
  maxDocumentBytes: number;
  inlineMaxBytes: number;
  wait: boolean;
}

export type Cli = CliResult<RunOptions>;


export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Cli {
  const parsed = tryParseArgs({
    args: argv,
    options: {
      nats: { type: 'string' },
      ...NATS_SECURITY_OPTIONS,
      name: { type: 'string' },
      host: { type: 'string' },
      'status-port': { type: 'string' },
      'status-listen': { type: 'string' },
      'pipeline-config': { type: 'string' },
      'config-server': { type: 'string' },
      'base-port': { type: 'string' },
      'reregistration-lease': { type: 'string' },
      'lease-seconds': { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      'max-document-bytes': { type: 'string' },
      'inline-max-bytes': { type: 'string' },
      wait: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if ('error' in parsed) return { kind: 'error', message: parsed.error };
  const { values } = parsed;
  if (values.help) return { kind: 'help', text: HELP };
  const security = natsSecurity(values, env);
  if (typeof security === 'string') return { kind: 'error', message: security };
  const statusPort = integerOption('status-port', values['status-port'], 0, 0, 65535);
  if (typeof statusPort === 'string') return { kind: 'error', message: statusPort };
  const basePort = integerOption('base-port', values['base-port'], 16000, 1, 65535);
  if (typeof basePort === 'string') return { kind: 'error', message: basePort };
  const leaseSeconds = integerOption('lease-seconds', values['lease-seconds'], DEFAULT_LEASE_TIMEOUT_SECONDS, 1, 86_400);
  if (typeof leaseSeconds === 'string') return { kind: 'error', message: leaseSeconds };
  const heartbeatMs = integerOption('heartbeat-ms', values['heartbeat-ms'], 1000, 10, 600_000);
  if (typeof heartbeatMs === 'string') return { kind: 'error', message: heartbeatMs };
  const maxDocumentBytes = integerOption('max-document-bytes', values['max-document-bytes'], 100 * 1024 * 1024, 1, 2 ** 40);
  if (typeof maxDocumentBytes === 'string') return { kind: 'error', message: maxDocumentBytes };
  const inlineMaxBytes = integerOption('inline-max-bytes', values['inline-max-bytes'], 256 * 1024, 1024, 2 ** 30);
  if (typeof inlineMaxBytes === 'string') return { kind: 'error', message: inlineMaxBytes };
  if (basePort + 390 > 65535) return { kind: 'error', message: `--base-port ${basePort} + 390 is beyond 65535` };
  const leaseText = values['reregistration-lease'];
  const lease = leaseText === undefined ? DEFAULT_REREGISTRATION_LEASE_SECONDS : Number(leaseText);
  if (!Number.isFinite(lease) || lease <= 0) return { kind: 'error', message: `--reregistration-lease must be a positive number of seconds, got "${leaseText}"` };
  if (values.name !== undefined && values.name.trim() === '') return { kind: 'error', message: '--name must not be empty' };
  const configServer = values['config-server'];
  if (configServer !== undefined && !/^https?:\/\/[^/\s]+(\/\S*)?$/.test(configServer)) {
    return { kind: 'error', message: `--config-server must be an http:// URL such as http://127.0.0.1:16005/RPC2, got "${configServer}"` };
  }
  const nats = natsServers(values.nats, env);
  return {
    kind: 'run',
    nats,
    security,
    name: values.name,
    host: values.host,
    statusPort,
    statusListen: values['status-listen'] ?? '127.0.0.1',
    pipelineConfig: values['pipeline-config'],
    configServer,
    basePort,
    reregistrationLeaseMs: Math.round(lease * 1000),
    leaseSeconds,
    heartbeatMs,
    maxDocumentBytes,
    inlineMaxBytes,
    wait: values.wait ?? false,
  };
}
