/**
 * Generates the secured bus of a container stack into a directory (docker-compose.yml runs it once, as the
 * `nats-auth` one-shot service, before NATS and the apps): the launcher's own files (ensureBusHome: a password per
 * role, the server's self-signed certificate, nats.conf), and one directory per role holding its password and the
 * CA (writeRoleDirs). Run again, it keeps the passwords and the certificate and writes the same files.
 *
 *   node dist/tools/launcher/bus/generate-main.js --home /esp --host nats --host localhost --host 127.0.0.1 \
 *     --nats-image nats:2.10-alpine --owner 1000:1000
 *   tsx tools/launcher/src/bus/generate-main.ts --home /tmp/esp --server-version 2.9.10
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '@esp/logging';
import { ensureBusHome } from './bus-home';
import { natsImageVersion, writeRoleDirs } from './container-bus';
import { versionAtLeast } from './nats-config';

const HELP = `Usage: generate-main --home <dir> [options]

Writes <home>/nats-auth: nats.conf (TLS, JetStream, one user per role and per item processor), server.pem (its
own CA) and its key, passwords.json, batch-key, client.env and admin.env, and roles/<role>/{password,ca.pem} for
each role (with batch-key for the indexer and content-distributor, and <name>/password for each item processor in
roles/item-processor). Existing passwords, the batch key and a certificate that serves every --host are kept.

Options:
  --home <dir>             the directory to write into (required)
  --host <name>            a name or IPv4 address clients reach NATS by (repeatable; default 127.0.0.1, localhost)
  --server-version <v>     the nats-server version the configuration is for ($NATS_SERVER_VERSION)
  --nats-image <image>     else the version in this image's tag, e.g. nats:2.10-alpine ($NATS_IMAGE)
  --owner <uid>:<gid>      owner of the role directories (the apps' user)
  --processor <name>       an item processor with a user of its own (repeatable; default item-processor-1,
                           item-processor-2: the instances of tools/launcher/profiles/docker.json)
  -h, --help               show this help
`;

const log = createLogger('nats-auth');
const fail = (message: string, code = 2): never => {
  process.stderr.write(`generate-main: ${message}\n`);
  process.exit(code);
};

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        home: { type: 'string' },
        host: { type: 'string', multiple: true },
        'server-version': { type: 'string' },
        'nats-image': { type: 'string' },
        owner: { type: 'string' },
        processor: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return fail(`${(err as Error).message}\nTry --help.`);
  }
})();
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (!values.home) fail('--home is required');
let owner: { uid: number; gid: number } | undefined;
if (values.owner) {
  const m = /^(\d+):(\d+)$/.exec(values.owner);
  if (!m) fail(`--owner takes <uid>:<gid>, not ${values.owner}`);
  else owner = { uid: Number(m[1]), gid: Number(m[2]) };
}

const image = values['nats-image'] ?? process.env['NATS_IMAGE'];
const version = values['server-version'] || process.env['NATS_SERVER_VERSION'] || (image ? natsImageVersion(image) : undefined);
// an unknown version gets the configuration every 2.x server reads, without sync_interval
if (!version) log.warn({ image }, 'nats-server version unknown (no --server-version, and no version in the image tag): sync_interval is left out');

try {
  const bus = ensureBusHome(values.home as string, version ?? '0.0.0', { ...(values.host?.length ? { hosts: values.host } : {}), ...(values.processor?.length ? { processors: values.processor } : {}) });
  writeRoleDirs(bus, join(bus.dir, 'roles'), owner);
  log.info({ dir: bus.dir, serverVersion: version, syncAlways: version ? versionAtLeast(version, 2, 10) : false, hosts: values.host }, 'secured bus files ready');
} catch (err) {
  log.error({ err }, 'cannot write the secured bus files');
  process.exit(1);
}
