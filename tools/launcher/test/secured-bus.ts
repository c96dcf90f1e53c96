/**
 * A real nats-server running the generated configuration: TLS with a self-signed certificate, one user per role
 * with a random password. Tests connect as a role, or hand a child process its role's environment.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { NatsServer, selfSignedCertificate } from '@esp/testing';
import { BUS_ROLES, type BusRole } from '../src/bus/bus-roles';
import { natsServerConfig } from '../src/bus/nats-config';

export class SecuredBus {
  private readonly open: Middleware[] = [];
  private constructor(
    readonly ns: NatsServer,
    readonly dir: string,
    readonly caFile: string,
    private readonly passwords: ReadonlyMap<BusRole, string>,
  ) {}

  static async start(): Promise<SecuredBus> {
    const dir = mkdtempSync(join(tmpdir(), 'esp-bus-'));
    const { cert, key } = selfSignedCertificate({ commonName: 'esp nats' });
    const certFile = join(dir, 'server.pem');
    const keyFile = join(dir, 'server-key.pem');
    writeFileSync(certFile, cert);
    writeFileSync(keyFile, key, { mode: 0o600 });
    const passwords = new Map(BUS_ROLES.map((r) => [r, randomBytes(18).toString('base64url')] as const));
    const config = natsServerConfig({
      users: BUS_ROLES.map((role) => ({ role, user: role, password: passwords.get(role) as string })),
      tls: { certFile, keyFile },
    });
    const ns = await NatsServer.start({ config });
    return new SecuredBus(ns, dir, certFile, passwords);
  }

  get url(): string {
    return this.ns.url;
  }

  password(role: BusRole): string {
    return this.passwords.get(role) as string;
  }

  /** What a process of `role` is given: the credentials and the CA, as the environment names them. */
  env(role: BusRole): Record<string, string> {
    return { NATS_USER: role, NATS_PASSWORD: this.password(role), NATS_CA: this.caFile };
  }

  async connect(role: BusRole, opts: { timeoutMs?: number; name?: string } = {}): Promise<Middleware> {
    const mw = await Middleware.connect({
      name: opts.name ?? role,
      servers: this.url,
      security: { user: role, password: this.password(role), tls: { caFile: this.caFile } },
      logger: createLogger(role, {}, { level: 'warn' }),
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
