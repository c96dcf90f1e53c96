/**
 * A real nats-server running the generated configuration: TLS with a self-signed certificate, one user per role
 * with a random password, and a user of its own for each item processor (PROCESSORS, and `item-processor`, the
 * role's). Tests connect as a role or a processor, or hand a child process its environment (the indexer's and the
 * distributors' with the batch key).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { NatsServer, selfSignedCertificate } from '@esp/testing';
import { BATCH_KEY_ENV } from '@esp/interfaces';
import { BUS_ROLES, type BusRole } from '../src/bus/bus-roles';

/** The item processors with users of their own, besides `item-processor`. */
export const PROCESSORS = ['item-processor-1', 'item-processor-2'] as const;
/** Feed clients with users of their own (the client role), besides the shared `client`. */
export const FEED_USERS = ['alice', 'bob'] as const;
import { natsServerConfig } from '../src/bus/nats-config';

export class SecuredBus {
  private readonly open: Middleware[] = [];
  private constructor(
    readonly ns: NatsServer,
    readonly dir: string,
    readonly caFile: string,
    private readonly passwords: ReadonlyMap<string, string>,
    readonly batchKeyFile: string,
  ) {}

  static async start(): Promise<SecuredBus> {
    const dir = mkdtempSync(join(tmpdir(), 'esp-bus-'));
    const { cert, key } = selfSignedCertificate({ commonName: 'esp nats' });
    const certFile = join(dir, 'server.pem');
    const keyFile = join(dir, 'server-key.pem');
    writeFileSync(certFile, cert);
    writeFileSync(keyFile, key, { mode: 0o600 });
    const passwords = new Map<string, string>([...BUS_ROLES, ...PROCESSORS, ...FEED_USERS].map((r) => [r, randomBytes(18).toString('base64url')] as const));
    const config = natsServerConfig({
      users: [
        ...BUS_ROLES.map((role) => ({ role, user: role, password: passwords.get(role) as string })),
        ...PROCESSORS.map((user) => ({ role: 'item-processor' as const, user, password: passwords.get(user) as string })),
        ...FEED_USERS.map((user) => ({ role: 'client' as const, user, password: passwords.get(user) as string })),
      ],
      tls: { certFile, keyFile },
    });
    const batchKeyFile = join(dir, 'batch-key');
    writeFileSync(batchKeyFile, randomBytes(32), { mode: 0o600 });
    const ns = await NatsServer.start({ config });
    return new SecuredBus(ns, dir, certFile, passwords, batchKeyFile);
  }

  get url(): string {
    return this.ns.url;
  }

  /** The password of a role's user, or of an item processor's (`item-processor-1`). */
  password(user: BusRole | (typeof PROCESSORS)[number]): string {
    return this.passwords.get(user) as string;
  }

  /** What a process of `role` is given: the credentials and the CA, as the environment names them. */
  env(role: BusRole): Record<string, string> {
    const key: Record<string, string> = role === 'indexer' || role === 'content-distributor' ? { [BATCH_KEY_ENV]: this.batchKeyFile } : {};
    return { NATS_USER: role, NATS_PASSWORD: this.password(role), NATS_CA: this.caFile, ...key };
  }

  /** What the item processor named `name` is given: its own user (`item-processor` is the role's). */
  processorEnv(name: 'item-processor' | (typeof PROCESSORS)[number]): Record<string, string> {
    return { NATS_USER: name, NATS_PASSWORD: this.password(name), NATS_CA: this.caFile };
  }

  /** A connection with the identity of the item processor named `name`. */
  connectProcessor(name: (typeof PROCESSORS)[number]): Promise<Middleware> {
    return this.connect('item-processor', { user: name });
  }

  async connect(role: BusRole, opts: { timeoutMs?: number; name?: string; user?: string } = {}): Promise<Middleware> {
    const user = opts.user ?? role;
    const mw = await Middleware.connect({
      name: opts.name ?? user,
      servers: this.url,
      security: { user, password: this.passwords.get(user) as string, tls: { caFile: this.caFile } },
      logger: createLogger(user, {}, { level: 'warn' }),
      timeoutMs: opts.timeoutMs ?? 2_000,
    });
    this.open.push(mw);
    return mw;
  }

  async stop(): Promise<void> {
    await Promise.all(this.open.map((m) => m.close().catch(() => undefined)));
    await this.ns?.cleanup();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
