/**
 * The one-command stack: `npm start`.
 *
 *   npm start                 # NATS_URL, else 127.0.0.1:4222, else a local nats-server with JetStream in .esp/nats
 *   npm start -- --help
 *
 * Starts the apps in order, waits until each says it is ready, prints what runs where and writes the same as JSON to
 * .esp/stack.json (ESP_HOME overrides .esp). Ctrl-C stops everything in reverse order, letting calls in flight
 * finish. A process that dies is restarted with backoff.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureNats } from './nats-endpoint';
import { Supervisor, type ProcessSpec } from './supervisor';

const HELP = `Usage: npm start [-- options]

Starts the ESP content pipeline on this machine.

Starts: the name server, the indexer (data in <home>/indexer), a content distributor and two item processors.
Then feed documents with \`npm run feed -- --collection default <files>\` and search with
\`npm run -s search -- "words" --collection default\`.

Options:
  --home <dir>         state directory (stack.json, NATS data, index) (default: $ESP_HOME or .esp)
  --collections <a,b>  collections to serve (default: $ESP_COLLECTIONS or "default")
  -h, --help       show this help

Environment:
  NATS_URL         use this NATS server instead of 127.0.0.1:4222 or a local one
`;

const { values } = (() => {
  try {
    return parseArgs({ options: { home: { type: 'string' }, collections: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    process.stderr.write(`launcher: ${(err as Error).message}\nTry --help.\n`);
    process.exit(2);
  }
})();
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const home = resolve(values.home ?? process.env['ESP_HOME'] ?? '.esp');
mkdirSync(home, { recursive: true });
const say = (line: string) => process.stderr.write(`[launcher] ${line}\n`);

let nats;
try {
  nats = await ensureNats(process.env, join(home, 'nats'));
} catch (err) {
  say((err as Error).message);
  process.exit(1);
}
say(`NATS at ${nats.url} (${nats.source === 'started' ? `started here, data in ${join(home, 'nats')}` : nats.source})`);

const collections = values.collections ?? process.env['ESP_COLLECTIONS'] ?? 'default';
const nat = ['--nats', nats.url, '--wait'];
const specs: ProcessSpec[] = [
  { name: 'name-server', entry: 'apps/name-server/src/main.ts', args: nat },
  { name: 'indexer', entry: 'apps/indexer/src/main.ts', args: [...nat, '--data', join(home, 'indexer'), '--collections', collections] },
  { name: 'content-distributor', entry: 'apps/content-distributor/src/main.ts', args: [...nat, '--collections', collections] },
  { name: 'item-processor-1', entry: 'apps/item-processor/src/main.ts', args: [...nat, '--name', 'item-processor-1', '--status-port', '0'] },
  { name: 'item-processor-2', entry: 'apps/item-processor/src/main.ts', args: [...nat, '--name', 'item-processor-2', '--status-port', '0'] },
];

const supervisor = new Supervisor(say);
const writeStack = () => {
  const stack = { nats: nats.url, started_at: new Date().toISOString(), processes: supervisor.describe() };
  writeFileSync(join(home, 'stack.json'), JSON.stringify(stack, null, 2) + '\n');
};
supervisor.onChange = writeStack;

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  say(`${signal}: stopping in order`);
  await supervisor.stopAll();
  if (nats.started) {
    nats.started.kill('SIGTERM');
    await new Promise((r) => nats.started?.once('exit', r));
  }
  say('stopped');
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

try {
  for (const spec of specs) await supervisor.start(spec);
} catch (err) {
  say(`start failed: ${(err as Error).message}`);
  await supervisor.stopAll();
  process.exit(1);
}
writeStack();
say('running:');
for (const p of supervisor.describe()) say(`  ${p.name.padEnd(22)} pid ${p.pid}${p.status_url ? `  status ${p.status_url}` : ''}`);
say(`state written to ${join(home, 'stack.json')}; Ctrl-C stops everything`);
