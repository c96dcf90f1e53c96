/**
 * The secured bus for a container stack (docker-compose.yml): each role's credentials as files in a directory of
 * its own, so that a container mounts its role's directory and nothing else, and the nats-server version read
 * from the image's tag, since the generator runs in another image than the server's.
 *
 *   const bus = ensureBusHome('/esp', natsImageVersion('nats:2.10-alpine') ?? '0.0.0', { hosts: ['nats'] });
 *   writeRoleDirs(bus, '/esp/nats-auth/roles', { uid: 1000, gid: 1000 });
 *   // a container: NATS_USER=indexer NATS_PASSWORD_FILE=<its dir>/password NATS_CA=<its dir>/ca.pem
 *   // the node controller's item processors: NATS_USER={name} NATS_PASSWORD_FILE=<item-processor's dir>/{name}/password
 */
import { chmodSync, chownSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BusHome } from './bus-home';
import { BUS_ROLES, type BusRole } from './bus-roles';

/** Where one role's files are: `password` (the first line) and `ca.pem`, the server's CA. */
export function roleDir(rolesDir: string, role: BusRole): string {
  return join(rolesDir, role);
}

/** The roles that hold the batch key (batch-key in their directory). */
const BATCH_KEY_ROLES: readonly BusRole[] = ['indexer', 'content-distributor'];

/**
 * Writes <rolesDir>/<role>/password and ca.pem for every role, owned by `owner` (the apps' user) and readable by
 * it alone, the CA by anyone (containers mount them read-only); `batch-key` for the indexer and the distributors;
 * and in the item processors' directory (the node controller's) <name>/password for each processor, whose user is
 * its name. Written at every run from the home's passwords, so a restart changes nothing.
 */
export function writeRoleDirs(bus: BusHome, rolesDir: string, owner?: { uid: number; gid: number }): void {
  mkdirSync(rolesDir, { recursive: true, mode: 0o755 });
  const own = (f: string, mode: number): void => {
    // a directory that is a volume's mount point starts out root's, 0755
    chmodSync(f, mode);
    if (owner) chownSync(f, owner.uid, owner.gid);
  };
  for (const role of BUS_ROLES) {
    const dir = roleDir(rolesDir, role);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const password = join(dir, 'password');
    const ca = join(dir, 'ca.pem');
    writeFileSync(password, `${bus.env(role)['NATS_PASSWORD']}\n`, { mode: 0o600 });
    copyFileSync(bus.caFile, ca);
    for (const [f, mode] of [[dir, 0o700], [password, 0o600], [ca, 0o644]] as const) own(f, mode);
    if (BATCH_KEY_ROLES.includes(role)) {
      const key = join(dir, 'batch-key');
      writeFileSync(key, readFileSync(bus.batchKeyFile), { mode: 0o600 });
      own(key, 0o600);
    }
    if (role === 'item-processor') {
      for (const name of bus.processors) {
        const pdir = join(dir, name);
        mkdirSync(pdir, { recursive: true, mode: 0o700 });
        const file = join(pdir, 'password');
        writeFileSync(file, readFileSync(bus.processorEnv(name)['NATS_PASSWORD_FILE'] as string), { mode: 0o600 });
        own(pdir, 0o700);
        own(file, 0o600);
      }
    }
  }
}

/**
 * The nats-server version an image reference names in its tag ("nats:2.10-alpine" -> "2.10", "esp-local/nats:2.9"
 * -> "2.9"), or undefined when the tag names none ("nats:latest", a digest).
 */
export function natsImageVersion(image: string): string | undefined {
  const last = image.slice(image.lastIndexOf('/') + 1);
  if (last.includes('@')) return undefined;
  const colon = last.indexOf(':');
  if (colon < 0) return undefined;
  return /^v?(\d+\.\d+(?:\.\d+)?)(?![\d.])/.exec(last.slice(colon + 1))?.[1];
}
