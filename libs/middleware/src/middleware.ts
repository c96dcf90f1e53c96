import { hostname } from 'node:os';
import { aorSchema, type Aor, type Implementation, type InterfaceDef, type ProxyOf } from '@esp/interfaces';
import { natsSecurity, type NatsSecurity } from '@esp/cli-options';
import { createLogger, type Logger } from '@esp/logging';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BlobStore, type BlobStoreOptions } from './blob-store';
import { randomBytes } from 'node:crypto';
import { BusState } from './bus-state';
import { Incarnations } from './incarnations';
import { createProxy, type ProxyOptions } from './client-proxy';
import { natsAuthOptions, NatsCredentialsError } from './nats-auth';
import { NameServerClient } from './name-server-client';
import { ServerObject, type ServerObjectOptions } from './server-object';
import { RawBus } from './raw-bus';
import { inboxPrefix, objectSubject } from './subjects';

/** Between two first-connection attempts while waiting for the server (waitForServerMs). */
const FIRST_CONNECT_RETRY_MS = 250;

export interface MiddlewareOptions {
  /** NATS server URL(s); default NATS_URL or nats://127.0.0.1:4222. */
  servers?: string | string[];
  /** Client name shown by the NATS server (the app's role). */
  name: string;
  /** Host written into the AORs of activated objects (default: this machine's hostname). */
  host?: string;
  logger?: Logger;
  /** Default call deadline (ms, default 30000). */
  timeoutMs?: number;
  /** Keep trying when NATS is not up yet (default false: fail at once with a clear error). */
  waitForServer?: boolean;
  /**
   * Keep trying this long (ms) when NATS is not up yet, then fail with the last error (a command line's bounded wait;
   * refused credentials fail at once). `onWaiting` is called once, when the first attempt fails.
   */
  waitForServerMs?: number;
  onWaiting?: (reason: string) => void;
  /** Credentials and TLS (default: from the environment, $NATS_USER, $NATS_CREDS, $NATS_CA... see @esp/cli-options). */
  security?: NatsSecurity;
}

export interface ActivateOptions extends ServerObjectOptions {
  object_id: string;
  port: number;
  /** The name the object is meant to be bound under (informational in the AOR). */
  name?: string;
}

/**
 * MS-FSMW on NATS: activate server objects, make typed proxies, talk to the name server.
 *
 *   const mw = await Middleware.connect({ name: 'content-distributor' });
 *   const obj = await mw.activate(sessionFactoryInterface, impl, { object_id: 'session_factory', port: 16390 });
 *   await mw.names.bind('esp/subsystems/processing/dispatcher', obj.aor);
 *   const { proxy } = await mw.names.resolveProxy(sessionFactoryInterface, 'esp/subsystems/processing/dispatcher');
 *   await proxy.__ping();
 *   await mw.close();   // drains: calls in flight finish and reply
 */
export class Middleware {
  readonly names: NameServerClient;
  /** Plain subjects and bytes (PPP frames, benchmark baselines). */
  readonly bus: RawBus;
  /** The connection's state: whether it is up, and its drops and reconnects. */
  readonly connection: BusState;
  /** This process, as its server objects name it in their replies (random per connection). */
  readonly incarnation = randomBytes(6).toString('base64url');
  private readonly incarnations = new Incarnations();
  private readonly objects = new Set<ServerObject<InterfaceDef>>();
  private readonly blobStores = new Map<string, Promise<BlobStore>>();
  private closed = false;

  private constructor(
    /** The NATS connection; only code inside this lib touches it. */
    readonly nc: NatsConnection,
    readonly host: string,
    readonly log: Logger,
    private readonly timeoutMs: number,
  ) {
    this.bus = new RawBus(nc);
    this.connection = new BusState(nc, log);
    this.names = new NameServerClient(nc, log, (iface, aor, o) => this.proxy(iface, aor, o), Math.min(timeoutMs, 10_000));
  }

  static async connect(opts: MiddlewareOptions): Promise<Middleware> {
    const log = opts.logger ?? createLogger(opts.name);
    const servers = opts.servers ?? process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
    const security = opts.security ?? natsSecurity({}, process.env);
    if (typeof security === 'string') throw new NatsCredentialsError(security);
    const auth = natsAuthOptions(security, servers);
    let nc: NatsConnection;
    const deadline = Date.now() + (opts.waitForServerMs ?? 0);
    let waiting = false;
    const connectOnce = async (): Promise<NatsConnection> => {
      for (;;) {
        try {
          return await connectNats();
        } catch (err) {
          const final = /authori[sz]ation|authentication|permission|certificate|self.signed/i.test((err as Error).message);
          if (final || Date.now() + FIRST_CONNECT_RETRY_MS > deadline) throw err;
          if (!waiting) opts.onWaiting?.((err as Error).message);
          waiting = true;
          await new Promise((r) => setTimeout(r, FIRST_CONNECT_RETRY_MS));
        }
      }
    };
    const connectNats = () =>
      connect({
        servers,
        ...auth,
        name: opts.name,
        inboxPrefix: inboxPrefix(security.user),
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        waitOnFirstConnect: opts.waitForServer ?? false,
        pingInterval: 10_000,
        // nats.js otherwise captures a stack trace (new RequestError) for every request in case it fails; a call's
        // errors become our system exceptions (client-proxy.ts) with their own stack, so that was pure cost
        noAsyncTraces: true,
      });
    try {
      nc = await connectOnce();
    } catch (err) {
      const refused = /authori[sz]ation|authentication/i.test((err as Error).message);
      const hint = refused ? 'Check the NATS credentials (--nats-user, --nats-creds... or $NATS_USER, $NATS_CREDS...).' : 'Is nats-server running?';
      throw new Error(`cannot connect to NATS at ${String(servers)}: ${(err as Error).message}. ${hint}`, { cause: err });
    }
    return new Middleware(nc, opts.host ?? hostname(), log, opts.timeoutMs ?? 30_000);
  }

  /** Activates a server object: it answers on the subject of its AOR until deactivated. */
  async activate<I extends InterfaceDef>(iface: I, impl: Implementation<I>, opts: ActivateOptions): Promise<ServerObject<I>> {
    const aor = aorSchema.parse({
      name: opts.name ?? '',
      object_id: opts.object_id,
      host: this.host,
      port: opts.port,
      interface_type: iface.type,
      interface_version: iface.version,
    });
    return this.activateAt(objectSubject(aor.interface_type, aor.host, aor.port, aor.object_id), iface, impl, aor, opts);
  }

  /** Activates on an explicit subject (the name server's well-known one). */
  async activateAt<I extends InterfaceDef>(subject: string, iface: I, impl: Implementation<I>, aor: Aor, opts: ServerObjectOptions = {}): Promise<ServerObject<I>> {
    const obj = new ServerObject(this.nc, iface, impl, aor, subject, this.log.child({ object: aor.object_id, interface: iface.type }), { incarnation: this.incarnation, ...opts });
    await obj.start();
    this.objects.add(obj as unknown as ServerObject<InterfaceDef>);
    this.log.debug({ subject, interface: iface.type, object: aor.object_id }, 'activated');
    return obj;
  }

  async deactivate<I extends InterfaceDef>(obj: ServerObject<I>): Promise<void> {
    this.objects.delete(obj as unknown as ServerObject<InterfaceDef>);
    await obj.deactivate();
  }

  /** A typed proxy of the object at `aor`. */
  proxy<I extends InterfaceDef>(iface: I, aor: Aor, opts: ProxyOptions = {}): ProxyOf<I> {
    return createProxy(this.nc, iface, aor, objectSubject(aor.interface_type, aor.host, aor.port, aor.object_id), { ...opts, timeoutMs: opts.timeoutMs ?? this.timeoutMs, bus: this.connection, incarnations: this.incarnations });
  }

  /** A typed proxy of an object activated on an explicit subject (activateAt): a well-known service address. */
  proxyAt<I extends InterfaceDef>(subject: string, iface: I, aor: Aor, opts: ProxyOptions = {}): ProxyOf<I> {
    return createProxy(this.nc, iface, aor, subject, { ...opts, timeoutMs: opts.timeoutMs ?? this.timeoutMs, bus: this.connection, incarnations: this.incarnations });
  }

  /**
   * The object store bucket for out-of-band content (a claim check), opened once per bucket and created if absent
   * (the options apply only then). A failed open is not kept: the next call tries again.
   */
  blobs(opts: BlobStoreOptions = {}): Promise<BlobStore> {
    const key = opts.bucket ?? '';
    let p = this.blobStores.get(key);
    if (!p) {
      p = BlobStore.open(this.nc, opts);
      this.blobStores.set(key, p);
      p.catch(() => this.blobStores.delete(key));
    }
    return p;
  }

  /** The largest message the server takes (its INFO max_payload; 1 MiB when it did not say). */
  get maxPayload(): number {
    return this.nc.info?.max_payload ?? 1024 * 1024;
  }

  /** Graceful shutdown: every object stops taking calls and finishes the ones in flight, then the connection drains. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.objects].map((o) => o.deactivate()));
    this.objects.clear();
    if (!this.nc.isClosed()) {
      try {
        await this.nc.drain();
      } catch {
        await this.nc.close();
      }
    }
  }

  get isClosed(): boolean {
    return this.closed || this.nc.isClosed();
  }
}
