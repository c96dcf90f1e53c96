import {
  DISPATCHER_NAME,
  REQUIRED_PRIORITY,
  ResolveException,
  dispatcherNodeName,
  masterDispatcherInterface,
  procserverHandlerInterface,
  type Aor,
  type ProxyOf,
} from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { ObjectNotExist, SystemException, type Middleware } from '@esp/middleware';
import { Lease, retry, systemClock, type Clock, type TimerHandle } from '@esp/timers';

export type MasterDispatcher = ProxyOf<typeof masterDispatcherInterface>;
export type ProcserverHandler = ProxyOf<typeof procserverHandlerInterface>;

export interface RegistrationOptions {
  mw: Middleware;
  /** The item processing component identifier, unique per instance. */
  name: string;
  hostname: string;
  pid: number;
  /** Reregistration Lease (default 180 s, DEFAULT_REREGISTRATION_LEASE_MS). */
  leaseMs: number;
  /** Backoff between initialization attempts. */
  retry: { initialMs: number; maxMs: number };
  /** Deadline of each registration call. */
  callTimeoutMs: number;
  /** Time of the Reregistration Lease (tests drive it with a ManualClock). */
  clock?: Clock;
  /**
   * While registered, the procserver_handler is pinged this often (default 1000 ms; 0 disables). When its content
   * distributor is gone (object_not_exist: killed, or a master change took its node away) initialization restarts
   * at once (MS-FSDPD 3.4.6), so an idle processor does not wait for a batch or its Reregistration Lease to notice.
   */
  handlerCheckMs?: number;
  log: Logger;
}

/** What registration registers and asks about: given at start, since they are built with the registration to hand. */
export interface RegisteredProcessor {
  /** The processor_server object's AOR. */
  object: Aor;
  /** True while a batch is in flight: the Reregistration Lease then starts over instead of reregistering. */
  busy: () => boolean;
  /** Called each time registration completes (the heartbeat sender sends READY). */
  onRegistered?: () => void;
}

type State = 'idle' | 'initializing' | 'registered' | 'stopped';

function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

/**
 * The item processor as a client of master_dispatcher and procserver_handler (MS-FSDPD 3.4, 3.6):
 *
 * - initialization (3.4.3): resolve master_dispatcher at DISPATCHER_NAME, register_procserver(name),
 *   assign_dispatcher(name) → C, resolve procserver_handler at dispatcherNodeName(C), activate processor_server,
 *   procserver_handler::register_procserver(proxy, name, host, pid, 0). A failure of any step (a system exception,
 *   3.4.6; or resolve_exception while no distributor is bound yet, or while assign_dispatcher's "1 when none
 *   available" names no handler) restarts the whole procedure after a backoff, until it succeeds or stop() is called.
 * - Reregistration Lease (3.4.2, 3.4.5): when it expires and nothing was processed since it started, unregister
 *   from master_dispatcher, then from procserver_handler, and initialize again.
 * - stop() (4.1.5): procserver_handler::unregister_procserver, then master_dispatcher::unregister_procserver.
 */
export class Registration {
  private state: State = 'idle';
  private master: MasterDispatcher | undefined;
  /** The dispatcher handle (3.4.1): where `processed` goes. */
  private handler: ProcserverHandler | undefined;
  /** Whether we (may) be registered at the master / the handler: what stop() and reregistration undo. */
  private atMaster = false;
  private atHandler = false;
  private activity = false;
  private running: Promise<void> | undefined;
  /** Ends the wait between two attempts of an initialization (stop). */
  private wake: (() => void) | undefined;
  private readonly lease: Lease;
  private handlerTimer: TimerHandle | undefined;
  private readonly registered: Promise<void>;
  private resolveRegistered: () => void = () => undefined;
  /** Set by start. */
  private processor: RegisteredProcessor | undefined;
  /** The dispatcher identifier C of the last registration. */
  dispatcherId: number | undefined;
  /** How many times registration completed (1 after start, +1 per reregistration). */
  registrations = 0;

  constructor(private readonly opts: RegistrationOptions) {
    this.lease = new Lease(opts.leaseMs, () => this.onLeaseExpired(), opts.clock ?? systemClock);
    this.registered = new Promise((resolve) => (this.resolveRegistered = resolve));
  }

  get isRegistered(): boolean {
    return this.state === 'registered';
  }

  /** The procserver_handler proxy of the current (or last) registration. */
  get dispatcherHandle(): ProcserverHandler | undefined {
    return this.handler;
  }

  start(processor: RegisteredProcessor): void {
    if (this.state !== 'idle') return;
    this.processor = processor;
    this.running = this.initialize();
  }

  /** Resolves once the first registration has completed. */
  whenRegistered(): Promise<void> {
    return this.registered;
  }

  /** A batch was processed: the Reregistration Lease will not reregister at its next expiry. */
  noteActivity(): void {
    this.activity = true;
  }

  /**
   * Unregisters and registers again now (processor_server::reassign, or the handler failed with a system exception).
   * Ignored unless registered: an initialization in progress already does this.
   */
  restart(reason: string): void {
    if (this.state !== 'registered') return;
    this.running = this.reregister(reason);
  }

  private onLeaseExpired(): void {
    if (this.state !== 'registered') return;
    if (this.activity || this.processor?.busy()) {
      this.activity = false;
      this.lease.start();
      return;
    }
    this.running = this.reregister('reregistration lease expired while idle');
  }

  /** 3.4.5: unregister_procserver at the master, then at the handler, then initialization (3.4.3). */
  private async reregister(reason: string): Promise<void> {
    this.state = 'initializing';
    this.lease.cancel();
    this.opts.log.info({ reason }, 'reregistering');
    await this.unregisterAtMaster();
    await this.unregisterAtHandler();
    if (this.state === 'initializing') await this.initialize();
  }

  private async initialize(): Promise<void> {
    this.state = 'initializing';
    let step = '';
    const stopping = new AbortController();
    this.wake = () => stopping.abort();
    try {
      await retry(
        () => {
          step = 'resolve master_dispatcher';
          return this.registerOnce((s) => (step = s));
        },
        {
          ...this.opts.retry,
          jitter: true,
          signal: stopping.signal,
          retryable: () => this.state === 'initializing',
          onRetry: (err, attempt, delay) => {
            const waiting = err instanceof ResolveException;
            this.opts.log.warn(
              { step, attempt: attempt + 1, retry_in_ms: delay, err: describeError(err), system_exception: err instanceof SystemException },
              waiting
                ? `registration: ${step} found nothing bound yet (content distributor not there?); retrying`
                : `registration: ${step} failed; restarting initialization (MS-FSDPD 3.4.6)`,
            );
          },
        },
      );
    } catch {
      return; // retried until stopped (or reassigned meanwhile): nothing more to do here
    } finally {
      this.wake = undefined;
    }
    if (this.state !== 'initializing') return; // stop() came during the last call: it unregisters
    this.state = 'registered';
    this.registrations++;
    this.activity = false;
    this.lease.start();
    this.opts.log.info({ dispatcher_id: this.dispatcherId, registrations: this.registrations }, 'registered with the content distributor');
    this.resolveRegistered();
    this.processor?.onRegistered?.();
    this.watchHandler();
  }

  private async registerOnce(at: (step: string) => void): Promise<void> {
    const { mw, name, callTimeoutMs: timeoutMs } = this.opts;
    const processor = this.processor;
    if (!processor) throw new Error('registration not started');
    at(`resolve master_dispatcher at ${DISPATCHER_NAME}`);
    const { proxy: master } = await mw.names.resolveProxy(masterDispatcherInterface, DISPATCHER_NAME, { timeoutMs });
    this.master = master;
    at('master_dispatcher::register_procserver');
    this.atMaster = true;
    await master.register_procserver(name);
    at('master_dispatcher::assign_dispatcher');
    const id = await master.assign_dispatcher(name);
    const handlerName = dispatcherNodeName(id);
    at(`resolve procserver_handler at ${handlerName}`);
    const { proxy: handler } = await mw.names.resolveProxy(procserverHandlerInterface, handlerName, { timeoutMs });
    at('procserver_handler::register_procserver');
    this.handler = handler;
    this.atHandler = true;
    await handler.register_procserver(processor.object, name, this.opts.hostname, this.opts.pid, REQUIRED_PRIORITY);
    this.dispatcherId = id;
  }

  private watchHandler(): void {
    const every = this.opts.handlerCheckMs ?? 1000;
    const clock = this.opts.clock ?? systemClock;
    if (every <= 0 || this.handlerTimer) return;
    this.handlerTimer = clock.setTimeout(() => {
      this.handlerTimer = undefined;
      const handler = this.handler;
      if (this.state !== 'registered' || !handler) return;
      void handler.__ping().then(
        () => this.watchHandler(),
        (err: unknown) => {
          if (err instanceof ObjectNotExist && this.handler === handler) this.restart('procserver_handler is gone (its content distributor stopped)');
          else this.watchHandler();
        },
      );
    }, every);
  }

  private async unregisterAtHandler(): Promise<void> {
    if (!this.atHandler || !this.handler) return;
    this.atHandler = false;
    try {
      await this.handler.unregister_procserver(this.opts.name);
    } catch (err) {
      this.opts.log.warn({ err: describeError(err) }, 'procserver_handler::unregister_procserver failed');
    }
  }

  private async unregisterAtMaster(): Promise<void> {
    if (!this.atMaster || !this.master) return;
    this.atMaster = false;
    try {
      await this.master.unregister_procserver(this.opts.name);
    } catch (err) {
      this.opts.log.warn({ err: describeError(err) }, 'master_dispatcher::unregister_procserver failed');
    }
  }

  /**
   * Stops registering (an initialization in progress ends after its current call) and unregisters as in
   * MS-FSDPD 4.1.5: procserver_handler first, then master_dispatcher.
   */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.lease.cancel();
    if (this.handlerTimer) (this.opts.clock ?? systemClock).clearTimeout(this.handlerTimer);
    this.handlerTimer = undefined;
    this.wake?.();
    await this.running?.catch(() => undefined);
    await this.unregisterAtHandler();
    await this.unregisterAtMaster();
  }
}
