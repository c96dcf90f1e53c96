/**
 * The one-command stack: `npm start`.
 *
 *   npm start                 # NATS_URL, else 127.0.0.1:4222, else a local nats-server with JetStream in .esp/nats
 *   npm start -- --help
 *
 * Starts the name server and the config server, then the node controller with a node profile (default:
 * tools/launcher/profiles/default.json: indexer, two content distributors (master and backup), two item processors,
 * and the crawl roles: duplicate server and replica, multinode scheduler, node scheduler(s)), waits until the node
 * controller reports every process running, prints what runs where and writes the same as JSON to .esp/stack.json
 * (ESP_HOME overrides .esp). Ctrl-C stops everything in reverse order (the node controller stops its processes in
 * reverse profile order), letting calls in flight finish.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cliHome, userCwd } from '@esp/cli-options';
import { ADMIN_READ_OPEN_ENV, ADMIN_SECRET_ENV } from '@esp/xmlrpc-http';
import type { BusHome } from './bus/bus-home';
import { acquireHomeLock, HomeInUse, type HomeLock } from './home-lock';
import { ownerOnlyTree } from './home-modes';
import { mergeCollections, readCollectionsFile, withCrawlNodes } from './crawl-roles';
import type { ProcessRow } from './node-control';
import { LastLines, NODE_READY_TIMEOUT_MS, notReady } from './not-ready';
import type { ProcessSpec } from './supervisor';

// three levels up is the workspace root both from tools/launcher/src/main.ts and from its build dist/tools/launcher/main.js
const DEFAULT_PROFILE = new URL('../../../tools/launcher/profiles/default.json', import.meta.url).pathname;
/** <home>/config/DocumentProcessor/pipelines.json when there is none: the item processors' own default pipeline. */
const DEFAULT_PIPELINES = {
  pipelines: { default: ['detect', 'charset', 'pdf', 'docx', 'utf8', 'xml', 'html', 'title', 'normalize'].map((type) => ({ type })) },
  default_pipeline: 'default',
};

const HELP = `Usage: npm start [-- options]

Starts the ESP content pipeline on this machine.

Starts: the name server, the config server (collections in <home>/config), and a node controller that runs the
node profile: by default the indexer (data in <home>/indexer), two content distributors (one master, one
backup that takes over when the master fails), two item processors, and the web crawler: a duplicate server
with its replica (data in <home>/dup, <home>/dup-replica), the multinode scheduler (state in <home>/crawl,
crawl configurations in <home>/config/crawl) and one node scheduler that feeds what it crawls.
Then feed documents with \`npm run feed -- --collection default <files>\`, or crawl a site with
\`npm run crawl -- --collection web http://...\`, and search with \`npm run -s search -- "words" --collection web\`.

Options:
  --home <dir>         state directory (stack.json, NATS data, index, crawl state, configuration)
                       (default: $ESP_HOME or .esp of the repository; a relative path is relative to
                       the directory npm start was typed in, $INIT_CWD); one npm start per home: a second
                       one is refused while the first runs (<home>/launcher.lock)
  --collections <a,b>  collections to serve, beside those <home>/config/collections.json already has (a
                       crawl adds its collection there) (default: $ESP_COLLECTIONS or "default")
  --crawl-nodes <n>    node schedulers of the crawl (default: 1; 0: no crawl roles at all)
  --profile <file>     node profile template; {home}, {config} (<home>/config), {collections} and
                       {config_server} (the config server's XML-RPC URL) are filled in
                       (default: tools/launcher/profiles/default.json)
  --content-max-bytes <n>  bound of the content bucket esp_content, e.g. 2GiB, 500MiB, or "none"
                       (default: 2GiB; a large document beyond it fails with content_unavailable, "full")
  --admin-read-open    read-only XML-RPC methods (GetProcessList, GetModuleStatus...) answer without the
                       admin secret (default: every method but ping needs it)
  --insecure           an open NATS, as in development before: no TLS, no users (default: the nats-server
                       started here runs with TLS and one user per role, see docs/security.md)
  -h, --help           show this help

Environment:
  NATS_URL         use this NATS server (with the credentials in NATS_USER, NATS_CREDS... ) instead of one started here

The admin secret that state-changing XML-RPC methods (StopProcess, RegisterModule, Shutdown...) need is
generated into <home>/admin-secret; outside clients send it as HTTP Basic password (http://esp:<secret>@host:port/RPC2).
`;

const { values } = (() => {
  try {
    return parseArgs({ options: { home: { type: 'string' }, collections: { type: 'string' }, 'crawl-nodes': { type: 'string' }, profile: { type: 'string' }, 'content-max-bytes': { type: 'string' }, 'admin-read-open': { type: 'boolean' }, insecure: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    process.stderr.write(`launcher: ${(err as Error).message}\nTry --help.\n`);
    process.exit(2);
  }
})();
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const crawlNodes = Number(values['crawl-nodes'] ?? 1);
if (!Number.isInteger(crawlNodes) || crawlNodes < 0 || crawlNodes > 64) {
  process.stderr.write(`launcher: --crawl-nodes must be an integer from 0 to 64, got "${values['crawl-nodes']}"\nTry --help.\n`);
  process.exit(2);
}

// every file under the home is its owner's only (the index, crawl state, logs, the NATS store), and so are the
// files of every process started from here: they inherit the umask
process.umask(0o077);
// --home and $ESP_HOME relative to where `npm start` was typed, as for every command line (@esp/cli-options)
const home = cliHome(process.argv.slice(2), process.env, 'start').home;
mkdirSync(home, { recursive: true });
ownerOnlyTree(home); // a home made before the umask
const say = (line: string) => process.stderr.write(`[launcher] ${line}\n`);

// one launcher per home, before anything else: a second one would start a second nats-server on the same store
let lock: HomeLock;
try {
  lock = acquireHomeLock(home);
} catch (err) {
  say(`${(err as Error).message}${err instanceof HomeInUse ? ` [${err.code}]` : ''}`);
  process.exit(err instanceof HomeInUse ? 3 : 1);
}
// loaded once the home is ours: a second start on a home in use is refused before this (about a second)
const { ensureAdminSecretFile } = await import('./admin-secret-file');
const { busRoleOf, DEFAULT_PROCESSORS, ensureBusHome, processorNames, withBusIdentities } = await import('./bus/bus-home');
const { parseByteSize, setUpJetStream } = await import('./bus/jetstream-setup');
const { ensureNats } = await import('./nats-endpoint');
const { fillProfile, getProcessList } = await import('./node-control');
const { StartAborted, Supervisor } = await import('./supervisor');
if (lock.tookOver) say(`took over the lock of launcher pid ${lock.tookOver.pid} (started ${lock.tookOver.started_at}), which is gone${lock.stoppedNats ? `; the nats-server it left running on the store (pid ${lock.stoppedNats}) was stopped` : ''}`);

const profileFile = join(home, 'node.json');
const profileTemplate = values.profile ? resolve(userCwd(process.env, 'start'), values.profile) : resolve(DEFAULT_PROFILE);
// checked before anything starts (no NATS, no streams for a profile that cannot run); written with the config server's URL once it runs
try {
  withCrawlNodes(fillProfile(profileTemplate, {}), crawlNodes);
} catch (err) {
  say(`cannot read the node profile: ${(err as Error).message}`);
  process.exit(2);
}


// stack.json as soon as the home is ours, so that a command started now never reads the run before's (its NATS URL
// may be another port): 'starting', then with the NATS URL, 'running' once every process is ready, 'stopped' at the
// stop (@esp/cli-options stack-state.ts reads it, with the launcher's pid)
const stackFile = join(home, 'stack.json');
const startedAt = new Date().toISOString();
let stackStateNow: 'starting' | 'running' | 'stopped' = 'starting';
const writeStackFile = (fields: Record<string, unknown>): void =>
  writeFileSync(stackFile, JSON.stringify({ state: stackStateNow, launcher_pid: process.pid, started_at: startedAt, home, ...fields }, null, 2) + '\n');
writeStackFile({});

// every process started from here (and the node controller's processes, which inherit the environment) checks and
// sends the same admin secret
const secret = ensureAdminSecretFile(home);
process.env[ADMIN_SECRET_ENV] = secret.file;
if (values['admin-read-open']) process.env[ADMIN_READ_OPEN_ENV] = '1';
if (secret.created) say(`admin secret generated in ${secret.file}`);

let nats;
let bus: BusHome | undefined;
try {
  // the secured bus: its users, certificate and configuration in <home>/nats-auth (client.env for the CLIs)
  // a user for each item processor of the profile (an unreadable profile is reported below, before anything starts)
  const processors = (): string[] => {
    try {
      return processorNames(fillProfile(profileTemplate, {}));
    } catch {
      return [...DEFAULT_PROCESSORS];
    }
  };
  nats = await ensureNats(process.env, join(home, 'nats'), values.insecure ? undefined : (version) => (bus = ensureBusHome(home, version, { processors: processors() })).configFile);
} catch (err) {
  say((err as Error).message);
  process.exit(1);
}
lock.recordNats(nats.started?.pid);
writeStackFile({ nats: nats.url });
say(`NATS at ${nats.url} (${nats.source === 'started' ? `started here, data in ${join(home, 'nats')}` : nats.source})`);
try {
  // the stack's streams, before any role opens them: no role but admin may create one (bus/jetstream-setup.ts)
  const contentMaxBytes = values['content-max-bytes'] === undefined ? undefined : parseByteSize(values['content-max-bytes'], '--content-max-bytes');
  await setUpJetStream({ url: nats.url, ...(bus ? { identity: bus.env('admin') } : {}), ...(contentMaxBytes !== undefined ? { contentMaxBytes } : {}), say });
} catch (err) {
  say(`cannot set up JetStream: ${(err as Error).message}`);
  await nats.started?.stop();
  process.exit(1);
}

const collections = (values.collections ?? process.env['ESP_COLLECTIONS'] ?? 'default').split(',').map((c) => c.trim()).filter(Boolean);
const configDir = join(home, 'config');
mkdirSync(configDir, { recursive: true });
// the collections asked for, and those a crawl added before (npm run crawl makes its collection known here)
const collectionsFile = join(configDir, 'collections.json');
const configured = mergeCollections(readCollectionsFile(collectionsFile), collections);
writeFileSync(collectionsFile, JSON.stringify({ collections: configured }, null, 2) + '\n');
// the pipelines: written once, then yours to edit (ReloadConfig or SIGHUP to the config server takes a change)
const pipelinesFile = join(configDir, 'DocumentProcessor', 'pipelines.json');
if (!existsSync(pipelinesFile)) {
  mkdirSync(dirname(pipelinesFile), { recursive: true });
  writeFileSync(pipelinesFile, JSON.stringify(DEFAULT_PIPELINES, null, 2) + '\n');
}
// every app (and the node controller's apps, which inherit its environment) finds NATS through NATS_URL
process.env['NATS_URL'] = nats.url;
if (bus) process.env['NATS_CA'] = bus.caFile;
/** A process's identity on the secured bus started here (none on a NATS_URL or --insecure one). */
const identity = (name: string): Record<string, string> => {
  const role = busRoleOf(name);
  return bus && role ? bus.env(role) : {};
};
const identities = (profile: unknown): unknown => (bus ? withBusIdentities(profile, bus) : profile);
const supervisor = new Supervisor(say);
/** Status / XML-RPC URLs of the node controller's processes, from their readiness lines. */
const urls = new Map<string, string>();
const nodeLines = new LastLines();
let rows: ProcessRow[] = [];

const describe = () => {
  const own = supervisor.describe().map((p) => ({ name: p.name, pid: p.pid, ...(p.xmlrpc_url ? { xmlrpc_url: p.xmlrpc_url } : {}), restarts: p.restarts }));
  const node = rows.map((r) => ({ name: r.name, pid: r.pid, ...(urls.has(r.name) ? { xmlrpc_url: urls.get(r.name) } : {}), restarts: r.restarts, state: r.state, node_controller: 'node-controller' }));
  return [...own, ...node];
};
const writeStack = () => writeStackFile({ nats: nats.url, profile: profileFile, processes: describe() });
supervisor.onChange = writeStack;

let stopping = false;
const timers: { refresh?: NodeJS.Timeout } = {};
const stop = async (signal: string, code = 0) => {
  if (stopping) return;
  stopping = true;
  if (timers.refresh) clearInterval(timers.refresh);
  say(`${signal}: stopping in order`);
  await supervisor.stopAll();
  await nats.started?.stop();
  stackStateNow = 'stopped';
  writeStackFile({ nats: nats.url, profile: profileFile, stopped_at: new Date().toISOString(), processes: describe() });
  lock.release();
  say('stopped');
  process.exit(code);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

const nat = ['--nats', nats.url, '--wait'];
const nodeControllerUrl = () => supervisor.describe().find((p) => p.name === 'node-controller')?.xmlrpc_url;
try {
  // on a server started here every binding in the store is a dead process's (this launcher holds the home)
  await supervisor.start({ name: 'name-server', entry: 'apps/name-server/src/main.ts', args: [...nat, ...(nats.source === 'started' ? ['--clear-bindings'] : [])], env: identity('name-server') });
  await supervisor.start({ name: 'config-server', entry: 'apps/config-server/src/main.ts', args: [...nat, '--port', '0', '--listen', '127.0.0.1', '--config-dir', configDir], env: identity('config-server') });
  const cfgUrl = supervisor.describe().find((p) => p.name === 'config-server')?.xmlrpc_url;
  if (!cfgUrl) throw new Error('the config server did not say its xmlrpc_url');
  writeFileSync(profileFile, JSON.stringify(identities(withCrawlNodes(fillProfile(profileTemplate, { home, config: configDir, collections: configured.map((c) => c.name).join(','), config_server: cfgUrl }), crawlNodes)), null, 2) + '\n', { mode: 0o600 });
  chmodSync(profileFile, 0o600); // it holds the processes' NATS passwords
  const nodeController: ProcessSpec = {
    name: 'node-controller',
    entry: 'apps/node-controller/src/main.ts',
    args: ['--profile', profileFile, '--port', '0', '--listen', '127.0.0.1', '--config-server', cfgUrl],
    stopTimeoutMs: 120_000,
    // its processes' lines, `[name] ...`: the last few of each say why one did not become ready
    onStderrLine: (line) => nodeLines.add(line),
    // its processes' readiness (a restart's included), with their URLs, whatever their log level
    onReadyLine: (r) => {
      const url = r.status_url ?? r.xmlrpc_url;
      if (r.process && url) urls.set(r.process, url);
    },
  };
  await supervisor.start(nodeController);
  // the node controller is ready once it has started every process; wait until each says it is ready
  const deadline = Date.now() + NODE_READY_TIMEOUT_MS;
  for (;;) {
    if (stopping) await new Promise(() => undefined);
    const url = nodeControllerUrl();
    rows = url ? await getProcessList(url).catch(() => rows) : rows;
    if (rows.length && rows.every((r) => r.state === 'running')) break;
    if (Date.now() > deadline) throw new Error(notReady(rows, nodeLines, NODE_READY_TIMEOUT_MS));
    await new Promise((r) => setTimeout(r, 200));
  }
} catch (err) {
  // Ctrl-C during the start: the stop under way says so and exits; the start's own end is no failure to report
  if (stopping || err instanceof StartAborted) await new Promise(() => undefined);
  say(`start failed: ${(err as Error).message}`);
  await stop('start failed', 1);
  await new Promise(() => undefined);
}
stackStateNow = 'running';
writeStack();
say('running:');
for (const p of describe()) say(`  ${p.name.padEnd(22)} pid ${String(p.pid).padEnd(8)}${p.xmlrpc_url ? ` XML-RPC ${p.xmlrpc_url}` : ''}`);
say(`state written to ${join(home, 'stack.json')}; Ctrl-C stops everything`);

// keep stack.json current when the node controller restarts a process (new pid, new status URL)
let last = JSON.stringify(describe().map((p) => [p.pid, p.xmlrpc_url]));
timers.refresh = setInterval(() => {
  const url = nodeControllerUrl();
  if (!url || stopping) return;
  void getProcessList(url)
    .then((r) => {
      rows = r;
      const now = JSON.stringify(describe().map((p) => [p.pid, p.xmlrpc_url]));
      if (now !== last && !stopping) {
        last = now;
        writeStack();
      }
    })
    .catch(() => undefined);
}, 2000);
