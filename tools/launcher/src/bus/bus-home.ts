/**
 * The secured bus's files in the stack's home, <home>/nats-auth (owner-only): a password per role (generated once,
 * kept across restarts), the server's self-signed certificate (its own CA: clients trust it through NATS_CA), and
 * the nats-server configuration generated from them at every start. Also what each process is given: its role's
 * user, password and the CA, as the environment variables the middleware reads. Each item processor has a user of
 * its own, named as the processor (item-processor-1, ...), allowed its own processor_server objects only; and the
 * distributors and the indexer share the batch key (`batch-key`), with which the indexer takes a batch only from
 * the processor it was dispatched to (docs/security.md).
 *
 *   const bus = ensureBusHome(home, '2.9.10');
 *   spawn('nats-server', ['-c', bus.configFile, ...]);
 *   supervisor.start({ name: 'name-server', ..., env: bus.env('name-server') });
 *   ensureBusHome(home, '2.10', { hosts: ['nats', 'localhost', '127.0.0.1'] });   // a server containers call "nats"
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { DEFAULT_CERTIFICATE_HOSTS, selfSignedCertificate } from '@esp/x509';
import { BATCH_KEY_ENV } from '@esp/interfaces';
import { BUS_ROLES, type BusRole } from './bus-roles';
import { natsServerConfig } from './nats-config';

export interface BusHome {
  dir: string;
  configFile: string;
  /** The server's certificate, which is its own CA. */
  caFile: string;
  /** The batch key's file (the distributors' and the indexer's). */
  batchKeyFile: string;
  /** The item processors with a user of their own (item-processor, the role's user, among them). */
  processors: readonly string[];
  env(role: BusRole): Record<string, string>;
  /** What the item processor named `name` is given: its own user, its password's file and the CA. */
  processorEnv(name: string): Record<string, string>;
}

/** The item processors of the default node profile (instances of `item-processor`). */
export const DEFAULT_PROCESSORS: readonly string[] = ['item-processor-1', 'item-processor-2'];

/** Where the password of the item processor named `name` is (its first line). */
export function processorPasswordFile(dir: string, name: string): string {
  return join(dir, 'processors', name, 'password');
}

/** The names of a node profile's item processors, as the node controller names its instances (<name>-<n>). */
export function processorNames(profile: unknown): string[] {
  const p = profile as { processes?: Array<{ name: string; instances?: number }> };
  if (!Array.isArray(p.processes)) return [];
  return p.processes.flatMap((x) => {
    if (busRoleOf(x.name) !== 'item-processor') return [];
    const n = x.instances ?? 1;
    return n === 1 ? [x.name] : Array.from({ length: n }, (_, i) => `${x.name}-${i + 1}`);
  });
}

/** Which role a process of the node profile (or of the launcher) plays on the bus, by its name. */
export function busRoleOf(processName: string): BusRole | undefined {
  if (processName === 'duplicate-server-replica') return 'duplicate-server';
  return (BUS_ROLES as readonly string[]).includes(processName) && processName !== 'client' && processName !== 'admin' ? (processName as BusRole) : undefined;
}

function readPasswords(file: string): Partial<Record<string, string>> {
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<Record<string, string>>;
  } catch {
    return {};
  }
}

export interface BusHomeOptions {
  /** The names and addresses clients reach the server by (default 127.0.0.1 and localhost). */
  hosts?: readonly string[];
  /** The item processors that get a user of their own (default DEFAULT_PROCESSORS). */
  processors?: readonly string[];
}

/** True when the PEM certificate in `file` is valid for every host; false when it is not, or is unreadable. */
function certificateCovers(file: string, hosts: readonly string[]): boolean {
  try {
    const x = new X509Certificate(readFileSync(file));
    return hosts.every((h) => (isIP(h) ? x.checkIP(h) : x.checkHost(h)) !== undefined);
  } catch {
    return false;
  }
}

export function ensureBusHome(home: string, serverVersion: string, opts: BusHomeOptions = {}): BusHome {
  const hosts = opts.hosts ?? DEFAULT_CERTIFICATE_HOSTS;
  const dir = join(home, 'nats-auth');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const secretsFile = join(dir, 'passwords.json');
  const known = readPasswords(secretsFile);
  // the role's own user is a processor named as the role (a profile entry of one instance)
  const processors = [...new Set(['item-processor', ...(opts.processors ?? DEFAULT_PROCESSORS)])];
  const userNames = [...new Set<string>([...BUS_ROLES, ...processors])];
  const passwords = Object.fromEntries(userNames.map((u) => [u, known[u] ?? randomBytes(24).toString('base64url')])) as Record<string, string>;
  writeFileSync(secretsFile, JSON.stringify(passwords, null, 2) + '\n', { mode: 0o600 });
  for (const name of processors) {
    const file = processorPasswordFile(dir, name);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${passwords[name]}\n`, { mode: 0o600 });
  }
  const batchKeyFile = join(dir, 'batch-key');
  if (!existsSync(batchKeyFile) || statSync(batchKeyFile).size < 32) writeFileSync(batchKeyFile, randomBytes(32), { mode: 0o600 });
  chmodSync(batchKeyFile, 0o600);
  const certFile = join(dir, 'server.pem');
  const keyFile = join(dir, 'server-key.pem');
  // kept while it serves every host asked; made again (a new CA for the clients) when a host is added
  if (!existsSync(keyFile) || !certificateCovers(certFile, hosts)) {
    const { cert, key } = selfSignedCertificate({ commonName: 'esp stack nats', days: 3650, hosts });
    writeFileSync(keyFile, key, { mode: 0o600 });
    writeFileSync(certFile, cert, { mode: 0o644 });
  }
  const configFile = join(dir, 'nats.conf');
  const users = [
    ...BUS_ROLES.map((role) => ({ role, user: role, password: passwords[role] as string })),
    ...processors.filter((p) => p !== 'item-processor').map((user) => ({ role: 'item-processor' as const, user, password: passwords[user] as string })),
  ];
  writeFileSync(configFile, natsServerConfig({ users, tls: { certFile, keyFile }, serverVersion }), { mode: 0o600 });
  const env = (role: BusRole): Record<string, string> => ({
    NATS_USER: role,
    NATS_PASSWORD: passwords[role] as string,
    NATS_CA: certFile,
    ...(role === 'indexer' || role === 'content-distributor' ? { [BATCH_KEY_ENV]: batchKeyFile } : {}),
  });
  const processorEnv = (name: string): Record<string, string> => ({ NATS_USER: name, NATS_PASSWORD_FILE: processorPasswordFile(dir, name), NATS_CA: certFile });
  // for the feed and search CLIs, and an operator: `set -a; . <home>/nats-auth/client.env; set +a`
  for (const role of ['client', 'admin'] as const) {
    const lines = Object.entries(env(role)).map(([k, v]) => `${k}=${v}`);
    writeFileSync(join(dir, `${role}.env`), lines.join('\n') + '\n', { mode: 0o600 });
  }
  return { dir, configFile, caFile: certFile, batchKeyFile, processors, env, processorEnv };
}

/**
 * The node profile with each process given its role's identity in its `env` (a process of no role gets none). An
 * item processor gets its own: `{name}`, which the node controller fills with each instance's name, is its user and
 * names its password's file.
 */
export function withBusIdentities(profile: unknown, bus: BusHome): unknown {
  const p = profile as { processes?: Array<{ name: string; env?: Record<string, string> }> };
  if (!Array.isArray(p.processes)) return profile;
  return {
    ...p,
    processes: p.processes.map((x) => {
      const role = busRoleOf(x.name);
      if (role === 'item-processor') return { ...x, env: { ...x.env, ...bus.processorEnv('{name}') } };
      return role ? { ...x, env: { ...x.env, ...bus.env(role) } } : x;
    }),
  };
}
