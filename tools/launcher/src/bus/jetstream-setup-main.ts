/**
 * The compose stack's one-shot set-up of its JetStream (docker-compose.yml runs it as the `jetstream-setup` service,
 * after NATS and before the apps), as `npm start` does it in its launcher: the content and name streams created
 * when missing and checked at every start; exits 1 naming the difference when one exists with a foreign
 * configuration. Connects with the identity of the environment (NATS_USER=admin, NATS_PASSWORD_FILE, NATS_CA).
 *
 *   node dist/tools/launcher/bus/jetstream-setup-main.js --nats nats://nats:4222 --content-max-bytes 2GiB
 */
import { parseArgs } from 'node:util';
import { parseByteSize, setUpJetStream } from './jetstream-setup';

const HELP = `Usage: jetstream-setup-main [options]

Creates (or checks) the stack's JetStream streams: OBJ_esp_content (no rollups, no message deletes, a size bound)
and KV_esp_names. Connects as the identity of the environment (NATS_USER, NATS_PASSWORD_FILE, NATS_CA): admin.

Options:
  --nats <url>               the NATS server (default $NATS_URL, else nats://127.0.0.1:4222)
  --content-max-bytes <n>    bound of the content bucket, e.g. 2GiB, 500MiB, or "none" (default 2GiB)
  -h, --help                 show this help
`;

const say = (line: string) => process.stderr.write(`[jetstream-setup] ${line}\n`);
try {
  const { values } = parseArgs({ options: { nats: { type: 'string' }, 'content-max-bytes': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const max = values['content-max-bytes'];
  await setUpJetStream({ url: values.nats ?? process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222', ...(max ? { contentMaxBytes: parseByteSize(max, '--content-max-bytes') } : {}), say });
} catch (err) {
  say(`cannot set up JetStream: ${(err as Error).message}`);
  process.exit(1);
}
