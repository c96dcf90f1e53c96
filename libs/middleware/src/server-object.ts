import {
  UserException,
  validateArgs,
  validateResult,
  versionCompatible,
  type Aor,
  type Implementation,
  type InterfaceDef,
  type MethodDef,
} from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  BadParameter,
  InternalError,
  PayloadTooLarge,
  ServerBusy,
  SystemException,
  UnknownMethod,
  VersionMismatch,
} from './system-exceptions';
import { decodeRequest, encodeException, encodeResult } from './wire-envelope';

export interface ServerObjectOptions {
  /** Requests larger than this are refused with payload_too_large (default 1 MiB). */
  maxRequestBytes?: number;
  /** Calls executing at once; more are refused with server_busy (default 1024). Bounds memory under a flood. */
  maxInFlight?: number;
  /** Serve in a NATS queue group (several processes, one logical object: the name server). */
  queue?: string;
  /** Check results against the interface before replying (default true). */
  validateResults?: boolean;
  /**
   * Asked before every call, __ping included: an exception returned is the answer (object_not_exist: as if the object
   * were not activated; server_busy: alive, not serving now). For objects that exist only while a role is held (the
   * master's session_factory): a stale holder stops serving at once, without waiting for an unsubscribe.
   */
  refuse?: () => SystemException | undefined;
  /**
   * Asked for every call once its arguments are valid, with the subject it arrived on (a wildcard subscription
   * serves many): an exception returned is the answer. The name server checks there that a write names the name
   * of its subject, so NATS permissions on subjects are permissions on names.
   */
  admit?: (method: string, args: readonly unknown[], subject: string) => SystemException | undefined;
  /** Names this process in every result reply (wire-envelope.ts): callers tell a restarted server from the same one. */
  incarnation?: string;
}

/**
 * A server object activated on the bus: it answers calls on its AOR's subject, validates them against its
 * interface definition, runs the implementation and replies with the result or a typed exception. Every call gets
 * exactly one reply, whatever arrives.
 */
export class ServerObject<I extends InterfaceDef> {
  private sub: Subscription | undefined;
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private readonly maxRequestBytes: number;
  private readonly maxInFlight: number;
  /** Client versions already found compatible: a caller sends the same one with every call, and parsing it is not free. */
  private readonly compatibleVersions = new Set<string>();

  constructor(
    private readonly nc: NatsConnection,
    readonly iface: I,
    private readonly impl: Implementation<I>,
    readonly aor: Aor,
    readonly subject: string,
    private readonly log: Logger,
    private readonly opts: ServerObjectOptions = {},
  ) {
    this.maxRequestBytes = opts.maxRequestBytes ?? 1024 * 1024;
    this.maxInFlight = opts.maxInFlight ?? 1024;
  }

  /** Named in replies; not for a queue group, whose replies come from several processes. */
  private get incarnation(): string | undefined {
    return this.opts.queue ? undefined : this.opts.incarnation;
  }

  /** Subscribes; resolves once the server has the subscription, so a call right after cannot miss it. */
  async start(): Promise<void> {
    this.sub = this.nc.subscribe(this.subject, {
      ...(this.opts.queue ? { queue: this.opts.queue } : {}),
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err, subject: this.subject }, 'subscription failed');
          return;
        }
        this.onMessage(msg);
      },
    });
    await this.nc.flush();
  }

  get callsInFlight(): number {
    return this.inFlight;
  }

  private reply(msg: Msg, bytes: Uint8Array): void {
    if (!msg.reply) return; // a publish without reply subject: nobody to answer
    try {
      msg.respond(bytes);
    } catch (err) {
      // the reply itself did not fit (max_payload) or the connection went away: say so if we still can
      this.log.warn({ err, subject: this.subject }, 'could not send reply');
      try {
        msg.respond(encodeException(new PayloadTooLarge(`reply could not be sent: ${(err as Error).message}`)));
      } catch {
        // connection closed: nothing more to do
      }
    }
  }

  private fail(msg: Msg, err: UserException | SystemException): void {
    this.reply(msg, encodeException(err));
  }

  private refuseVersion(msg: Msg, requested: string): void {
    this.fail(
      msg,
      new VersionMismatch(`${this.iface.type} ${this.iface.version} cannot serve a client of version ${requested}`, { served: this.iface.version, requested }),
    );
  }

  private onMessage(msg: Msg): void {
    const size = msg.data.length;
    if (size > this.maxRequestBytes) {
      this.log.warn({ size, limit: this.maxRequestBytes }, 'request refused: too large');
      return this.fail(msg, new PayloadTooLarge(`request of ${size} bytes exceeds the limit of ${this.maxRequestBytes} bytes`, { size, limit: this.maxRequestBytes }));
    }
    let req;
    try {
      req = decodeRequest(msg.data);
    } catch (err) {
      this.log.warn({ err: (err as Error).message, size }, 'request refused: malformed');
      return this.fail(msg, err as SystemException);
    }
    if (req.interfaceType !== this.iface.type) {
      return this.fail(msg, new VersionMismatch(`this object serves ${this.iface.type}, not ${req.interfaceType}`, { served: this.iface.type, requested: req.interfaceType }));
    }
    if (!this.compatibleVersions.has(req.interfaceVersion)) {
      if (!versionCompatible(this.iface.version, req.interfaceVersion)) return this.refuseVersion(msg, req.interfaceVersion);
      if (this.compatibleVersions.size < 16) this.compatibleVersions.add(req.interfaceVersion);
    }
    const refused = this.opts.refuse?.();
    if (refused) return this.fail(msg, refused);
    if (req.method === '__ping') return this.reply(msg, encodeResult(null, this.incarnation));
    const def = Object.prototype.hasOwnProperty.call(this.iface.methods, req.method) ? (this.iface.methods[req.method] as MethodDef) : undefined;
    if (!def) {
      return this.fail(msg, new UnknownMethod(`${this.iface.type} has no method "${req.method}"`, { method: req.method }));
    }
    const checked = validateArgs(def, req.args);
    if (!checked.ok) {
      return this.fail(
        msg,
        new BadParameter(`${req.method}: argument "${checked.argument}" (#${checked.index}): ${checked.reason}`, {
          method: req.method,
          argument: checked.argument,
          index: checked.index,
          reason: checked.reason,
        }),
      );
    }
    const refusal = this.opts.admit?.(req.method, checked.args, msg.subject);
    if (refusal) return this.fail(msg, refusal);
    if (this.inFlight >= this.maxInFlight) {
      return this.fail(msg, new ServerBusy(`${this.iface.type} has ${this.inFlight} calls in flight; retry shortly`));
    }
    this.inFlight++;
    void this.execute(msg, req.method, def, checked.args).finally(() => {
      this.inFlight--;
      if (this.inFlight === 0) this.idle?.();
    });
  }

  private async execute(msg: Msg, method: string, def: MethodDef, args: unknown[]): Promise<void> {
    try {
      const fn = (this.impl as Record<string, (...a: unknown[]) => unknown>)[method];
      if (typeof fn !== 'function') throw new UnknownMethod(`${this.iface.type}.${method} is not implemented by this server`);
      let result = await fn.apply(this.impl, args);
      if (this.opts.validateResults ?? true) {
        const r = validateResult(def, result);
        if (!r.ok) {
          this.log.error({ method, reason: r.reason }, 'implementation returned a value its interface does not allow');
          return this.fail(msg, new InternalError(`${method} produced an invalid result: ${r.reason}`));
        }
        result = r.value;
      }
      this.reply(msg, encodeResult(result, this.incarnation));
    } catch (err) {
      if (err instanceof UserException || err instanceof SystemException) return this.fail(msg, err);
      this.log.error({ err, method }, 'call failed with an unexpected error');
      this.fail(msg, new InternalError(`${method} failed: ${(err as Error)?.message ?? String(err)}`));
    }
  }

  /** Stops taking calls, lets the ones in flight finish and reply (graceful drain). */
  async deactivate(timeoutMs = 10_000): Promise<void> {
    const sub = this.sub;
    this.sub = undefined;
    if (sub && !sub.isClosed()) {
      try {
        await sub.drain();
      } catch {
        // connection already closed
      }
    }
    if (this.inFlight > 0) {
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
      ]);
    }
  }
}
