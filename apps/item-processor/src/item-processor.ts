import { hostname } from 'node:os';
import {
  DEFAULT_LEASE_TIMEOUT_SECONDS,
  DEFAULT_REREGISTRATION_LEASE_MS,
  INTERNAL_PORT_OFFSET,
  processorServerInterface,
  type Aor,
} from '@esp/interfaces';
import type { NatsSecurity } from '@esp/cli-options';
import { createLogger, type Logger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { encodeLivenessMessage, HEARTBEAT_INTERVAL_MS, HeartbeatSender, livenessSubject } from '@esp/ppp';
import type { Clock } from '@esp/timers';
import { BatchProcessor } from './batch-processor';
import { LeaseRenewal } from './lease-renewal';
import { DEFAULT_PIPELINE_CONFIG, type PipelineConfig } from '@esp/pipeline';
import { ConfigSubscription } from './config-subscription';
import { PipelineSource } from './pipeline-source';
import { processorServer } from './processor-server';
import { Registration } from './registration';
import { STATUS_STATE_CHANGING, StatusService } from './status/status-service';
import { StatusState } from './status/status-state';
import { XMLRPC_PATH, startXmlRpcHttpServer } from '@esp/xmlrpc-http';

/** FAST ESP's default base port; the processor_server AOR is on base port + 390. */
export const DEFAULT_BASE_PORT = 16000;

export interface ItemProcessorOptions {
  /** NATS server URL(s) (default NATS_URL or nats://127.0.0.1:4222). */
  nats?: string | string[];
  /** NATS credentials and TLS (default: from the environment). */
  security?: NatsSecurity;
  /** Keep trying while NATS is not up yet (default false). */
  waitForNats?: boolean;
  /** The item processing component identifier (default procserver_<host>_<pid>). */
  name?: string;
  /** Host written into the AOR and the status URL (default: this machine's hostname). */
  host?: string;
  /** Port of the Status XML-RPC server; 0 picks a free one (default 0). */
  statusPort?: number;
  /** Address the Status server listens on (default 0.0.0.0). */
  statusListen?: string;
  /** Largest XML-RPC request body (default 1 MiB). */
  statusMaxBodyBytes?: number;
  /** A JSON file (re-read by ResetContainer / ConfigurationChanged) or a configuration object. Default: DEFAULT_PIPELINE_CONFIG of @esp/pipeline. */
  pipelineConfig?: string | PipelineConfig;
  /**
   * The config server's XML-RPC URL: the pipelines and collections come from there (ResetContainer at start and on
   * every ConfigurationChanged, MS-FSDPD 3.7.4.1 / 3.7.4.3); pipelineConfig is then only the fallback used when the
   * config server has no DocumentProcessor/pipelines.json. The distributor gets us once the first configuration is in.
   */
  configServer?: string;
  /** Base port of the installation (default 16000); processor_server is on base + 390. */
  basePort?: number;
  /** Reregistration Lease (default 180 s). */
  reregistrationLeaseMs?: number;
  /**
   * The Lease Timeout asked of the distributor by procserver_handler::renew while a batch runs, in seconds, renewed
   * every third of it (MS-FSDPD 3.5.2, 3.5.4.4; default 300, DEFAULT_LEASE_TIMEOUT_SECONDS).
   */
  leaseSeconds?: number;
  /** PPP heartbeat interval towards the content distributor (default 1000 ms). */
  heartbeatMs?: number;
  /** Time source of the Reregistration Lease and the heartbeats (tests). */
  clock?: Clock;
  /** Backoff of registration attempts and of retries towards the indexer (default 100 ms doubling to 1 s). */
  retry?: { initialMs: number; maxMs: number };
  /** How long to keep retrying a refusing indexing session before reporting completed=false (default 60 s). */
  forwardDeadlineMs?: number;
  /** Deadline of each middleware call (default 10 s). */
  callTimeoutMs?: number;
  /** Refuse batches with system_resource_error above this much JS heap in use (default 90 % of the limit). */
  maxHeapUsedBytes?: number;
  /** Content fetched from the object store over this size fails its item with document_too_large (default 100 MiB). */
  maxDocumentBytes?: number;
  /** A processed attribute over this size goes to the indexer through the object store (default 256 KiB). */
  inlineMaxBytes?: number;
  /** How long stop() waits for the batch in flight (default 30 s). */
  stopTimeoutMs?: number;
  /** Called when the Status method Shutdown sets Terminating (main.ts stops the process). */
  onShutdownRequest?: () => void;
  logger?: Logger;
}

export interface ItemProcessor {
  /** The item processing component identifier. */
  readonly name: string;
  /** http://<host>:<port>/RPC2 of the Status interface. */
  readonly status_url: string;
  readonly statusPort: number;
  readonly status: StatusState;
  readonly registration: Registration;
  readonly heartbeats: HeartbeatSender;
  readonly batches: BatchProcessor;
  /** The processor_server object's AOR (active from the start, registered with a distributor by `registration`). */
  readonly aor: Aor;
  readonly mw: Middleware;
  /** Resolves once registered with a content distributor (MS-FSDPD 3.4.3 completed). */
  whenRegistered(): Promise<void>;
  /** Sets the Terminating state of the Status interface: process then raises shutting_down. */
  setTerminating(on: boolean): void;
  /** Re-reads the pipeline configuration (ResetContainer does this too). False when it failed (old one kept). */
  reloadPipelines(): boolean | Promise<boolean>;
  /** The config server side (with configServer): registration, resets. */
  readonly config: ConfigSubscription | undefined;
  /**
   * Graceful stop: Terminating, unregister (procserver_handler, then master_dispatcher: MS-FSDPD 4.1.5), finish the
   * batch in flight, close the Status server and the middleware (calls in flight reply).
   */
  stop(): Promise<void>;
}

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Starts an item processor: connects to NATS, serves the Status interface over XML-RPC, registers with the
 * content distributor (retrying until one is there) and processes the batches it sends.
 *
 *   const ip = await startItemProcessor({ nats: 'nats://127.0.0.1:4222', pipelineConfig: 'pipelines.json' });
 *   await ip.whenRegistered();
 *   console.log(ip.name, ip.status_url);
 *   await ip.stop();
 */
export async function startItemProcessor(opts: ItemProcessorOptions = {}): Promise<ItemProcessor> {
  const host = opts.host ?? hostname();
  const name = opts.name ?? `procserver_${host}_${process.pid}`;
  const log = (opts.logger ?? createLogger('item-processor')).child({ procserver: name });
  // at most a second between attempts: a restarted indexer or distributor is used within a second of its return
  const retry = opts.retry ?? { initialMs: 100, maxMs: 1_000 };
  const callTimeoutMs = opts.callTimeoutMs ?? 10_000;
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;

  const status = new StatusState();
  const pipelines = new PipelineSource(opts.pipelineConfig ?? DEFAULT_PIPELINE_CONFIG, status, log); // a bad configuration stops the start
  const mw = await Middleware.connect({ name: `item-processor/${name}`, servers: opts.nats, security: opts.security, host, logger: log, waitForServer: opts.waitForNats, timeoutMs: callTimeoutMs });
  const service = new StatusService(status, {
    reinitialize: () => pipelines.reload(),
    shutdownRequested: () => {
      log.info('Shutdown requested over the Status interface');
      opts.onShutdownRequest?.();
    },
    leakDetect: (memory) => log.info({ memory, heap: process.memoryUsage() }, 'LeakDetect: memory usage'),
  });
  const statusServer = await startXmlRpcHttpServer({
    host: opts.statusListen ?? '127.0.0.1',
    port: opts.statusPort ?? 0,
    maxBodyBytes: opts.statusMaxBodyBytes,
    dispatch: (method, params) => service.call(method, params),
    protect: (method) => STATUS_STATE_CHANGING.has(method),
    log,
  }).catch(async (err: unknown) => {
    await mw.close();
    throw new Error(`cannot serve the Status interface on port ${opts.statusPort ?? 0}: ${describeError(err)}`, { cause: err });
  });
  // a server on one address is reached there; one on every interface by this machine's name
  const reachable = statusServer.host === '0.0.0.0' || statusServer.host === '::' ? host : statusServer.host;
  const status_url = `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${statusServer.port}${XMLRPC_PATH}`;
  log.info({ status_url, port: statusServer.port }, 'Status interface listening');
  // the config server alerts the Status port, so it is followed once that port listens
  const config =
    opts.configServer === undefined
      ? undefined
      : new ConfigSubscription({ url: opts.configServer, statusPort: statusServer.port, host, fallback: () => pipelines.localConfig(), apply: (c) => pipelines.take(c), log });
  if (config) pipelines.follow(config);

  const registration = new Registration({
    mw,
    name,
    hostname: host,
    pid: process.pid,
    leaseMs: opts.reregistrationLeaseMs ?? DEFAULT_REREGISTRATION_LEASE_MS,
    retry,
    callTimeoutMs,
    clock: opts.clock,
    // notice a distributor that is gone (a master change) within about one heartbeat interval
    handlerCheckMs: heartbeatMs,
    log,
  });
  // [name, READY | HEARTBEAT] to the liveness subject of the distributor node we are registered at, idle or busy;
  // READY after each (re)registration and after a gap (the process was stopped, e.g. SIGSTOP then SIGCONT, and may
  // have been declared dead meanwhile)
  const identity = new TextEncoder().encode(name);
  const heartbeats = new HeartbeatSender({
    intervalMs: heartbeatMs,
    readyAfterGap: true,
    send: (frame) => {
      if (!registration.isRegistered || registration.dispatcherId === undefined) return false;
      mw.bus.publish(livenessSubject(registration.dispatcherId), encodeLivenessMessage(identity, frame));
      return true;
    },
    clock: opts.clock,
    onGap: (silentMs) => log.warn({ silent_ms: silentMs }, 'heartbeats were held up (process stopped?); sending READY'),
    onError: (err) => log.warn({ err: (err as Error).message }, 'heartbeat not sent'),
  });
  const batches = new BatchProcessor({
    name,
    mw,
    status,
    pipelines: () => pipelines.current,
    handler: () => registration.dispatcherHandle,
    onProcessed: () => registration.noteActivity(),
    lease: new LeaseRenewal({ name, periodSeconds: opts.leaseSeconds ?? DEFAULT_LEASE_TIMEOUT_SECONDS, handler: () => registration.dispatcherHandle, clock: opts.clock, log }),
    onHandlerLost: (reason) => registration.restart(reason),
    forwardDeadlineMs: opts.forwardDeadlineMs ?? 60_000,
    retry,
    maxHeapUsedBytes: opts.maxHeapUsedBytes,
    callTimeoutMs,
    claimCheck: {
      maxDocumentBytes: opts.maxDocumentBytes ?? 100 * 1024 * 1024,
      inlineMaxBytes: opts.inlineMaxBytes ?? 256 * 1024,
      // the indexer's session object takes requests of up to 1 MiB, and the bus its max_payload
      batchBytes: Math.min(mw.maxPayload, 1024 * 1024) - 64 * 1024,
    },
    log,
  });
  const object = await mw
    .activate(processorServerInterface, processorServer(batches, registration), {
      // this process's own address: after a crash the restarted processor (same name) answers elsewhere, so a call or
      // a probe of the dead one finds no responders rather than the new process
      object_id: `processor_server/${name}/${process.pid}`,
      port: (opts.basePort ?? DEFAULT_BASE_PORT) + INTERNAL_PORT_OFFSET,
      name,
    })
    .catch(async (err: unknown) => {
      await statusServer.close();
      await mw.close();
      throw err;
    });

  let stopping: Promise<void> | undefined;
  const register = (): void => registration.start({ object: object.aor, busy: () => batches.busy, onRegistered: () => heartbeats.ready() });
  heartbeats.start();
  if (config) {
    // the initial ResetContainer (3.7.3): no batches before the configuration of the config server is in
    void config.start().then(
      () => {
        if (!stopping) register();
      },
      () => undefined,
    );
  } else {
    register();
  }

  const stop = async (): Promise<void> => {
    status.terminating = true;
    log.info('stopping: unregistering, finishing the batch in flight');
    heartbeats.stop();
    await config?.stop(); // UnregisterModule (3.7.6)
    await registration.stop();
    if (!(await batches.whenIdle(opts.stopTimeoutMs ?? 30_000))) log.warn('stopping with a batch still in flight');
    await statusServer.close();
    await mw.close();
    log.info('stopped');
  };

  return {
    name,
    status_url,
    statusPort: statusServer.port,
    status,
    registration,
    heartbeats,
    batches,
    aor: object.aor,
    mw,
    whenRegistered: () => registration.whenRegistered(),
    setTerminating: (on) => {
      status.terminating = on;
    },
    reloadPipelines: () => pipelines.reload(),
    config,
    stop: () => (stopping ??= stop()),
  };
}
