import { XmlRpcFault, type XmlRpcInputStruct, type XmlRpcValue } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import { retry } from '@esp/timers';
import { xmlRpcCall } from '@esp/xmlrpc-http';
import type { PipelineConfig } from '@esp/pipeline';

/** ModuleRegister type and name of an item processor (MS-FSDPD 3.7.4.3). */
export const PROCESSOR_SERVER_MODULE = 'ProcessorServer';
/** Implementation-specific; the same in RegisterModule and UnregisterModule (3.7.6). */
export const ITEM_PROCESSOR_VERSION = '1.0';
/** The alerts an item processor registers for (MS-FSDPD 3.7.4.3 and 3.7.6, in the spec's order). */
export const PROCESSOR_SERVER_ALERTS: readonly string[] = Object.freeze([
  'pipelines',
  'stages',
  'collection',
  'pipeline_added',
  'pipeline_modified',
  'pipeline_removed',
  'PipelineLogger',
  'configfile',
  'ProcessorServer',
]);
/** Where the config server keeps the pipelines (LoadConfigFile(module, filepath)); see apps/config-server/README.md. */
export const PIPELINES_CONFIG_FILE = { module: 'DocumentProcessor', filepath: 'pipelines.json' } as const;
/** The config server's fault for LoadConfigFile of a file it does not have. */
const FAULT_NO_SUCH_FILE = 1;

export interface CollectionEntry {
  name: string;
  pipeline: string;
}

/**
 * The pipeline configuration an item processor runs with when it takes its configuration from the config server:
 * the pipelines of DocumentProcessor/pipelines.json (or, when the config server has none, the local fallback), and
 * for each collection of the config server the pipeline collections.json names for it (which wins over a
 * "collections" entry of the pipelines file).
 */
export function pipelineConfigFrom(file: unknown, collections: readonly CollectionEntry[]): PipelineConfig {
  if (!file || typeof file !== 'object' || Array.isArray(file)) throw new Error('the pipeline configuration must be a JSON object');
  const base = file as PipelineConfig;
  return { ...base, collections: { ...(base.collections ?? {}), ...Object.fromEntries(collections.map((c) => [c.name, c.pipeline])) } };
}

function collectionList(v: XmlRpcValue): CollectionEntry[] {
  if (!Array.isArray(v)) throw new Error('GetCollections must return an array');
  return v.map((c, i) => {
    const s = c as Record<string, XmlRpcValue>;
    if (!s || typeof s !== 'object' || typeof s['name'] !== 'string' || typeof s['pipeline'] !== 'string') throw new Error(`GetCollections[${i}] must be a struct {name, pipeline}`);
    return { name: s['name'], pipeline: s['pipeline'] };
  });
}

export interface ConfigSubscriptionOptions {
  /** The config server's XML-RPC URL (http://host:port/RPC2). */
  url: string;
  /** Our Status XML-RPC port: the ModuleRegister port, where ConfigurationChanged arrives. */
  statusPort: number;
  /** Our host name, the first member of the RegisterProcessorPipelines tuple. */
  host: string;
  /** The pipeline configuration to use when the config server has no pipelines file (--pipeline-config or the default). */
  fallback: () => unknown;
  /** Builds and takes a configuration, returning its pipeline names; throws when it does not build (the old one stays). */
  apply: (config: PipelineConfig) => string[];
  log: Logger;
  /** Deadline of each call to the config server (default 3 s; the config server waits 5 s for ConfigurationChanged). */
  callTimeoutMs?: number;
  /** RegisterModule again this often, so that a restarted config server knows us again (default 30 s). */
  refreshMs?: number;
  /** Backoff of the first reset while the config server is not there (default 200 ms doubling to 5 s). */
  retry?: { initialMs: number; maxMs: number };
}

/**
 * An item processor's side of the config server (MS-FSDPD 3.7.3, 3.7.4.1, 3.7.4.3, 3.7.6). `reset()` is what
 * ResetContainer does after FlushState: LoadConfigFile("DocumentProcessor", "pipelines.json") and GetCollections
 * (ours), build and swap the pipelines (a batch in flight finishes on the pipeline it started with), then
 * RegisterModule (type and name "ProcessorServer", the nine alerts) and RegisterProcessorPipelines([host, port],
 * names). Resets never overlap: one asked for while another runs runs once more after it, so the last
 * ConfigurationChanged always sees the configuration as it is now.
 *
 *   const sub = new ConfigSubscription({ url, statusPort, host, fallback, apply, log });
 *   await sub.start();                 // the initial ResetContainer (3.7.3), retried until the config server answers
 *   await sub.reset();                 // on ConfigurationChanged / ResetContainer
 *   await sub.stop();                  // UnregisterModule (3.7.6)
 */
export class ConfigSubscription {
  private current: Promise<boolean> | undefined;
  private pending: Promise<boolean> | undefined;
  private registered = false;
  /** A refresh failed: the config server may have missed alerts or restarted, so the next success resets. */
  private lost = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /** Ends the wait between two attempts of the initial ResetContainer (stop). */
  private wake: (() => void) | undefined;
  private readonly module: XmlRpcInputStruct;

  constructor(private readonly o: ConfigSubscriptionOptions) {
    this.module = { port: o.statusPort, type: PROCESSOR_SERVER_MODULE, version: ITEM_PROCESSOR_VERSION, name: PROCESSOR_SERVER_MODULE, alerts: [...PROCESSOR_SERVER_ALERTS] };
  }

  get isRegistered(): boolean {
    return this.registered;
  }

  /** The initial ResetContainer (3.7.3): retried with backoff until it succeeds (or stop()); then periodic RegisterModule. */
  async start(): Promise<void> {
    if (this.stopped) throw new Error('stopped before the config server answered');
    const stopping = new AbortController();
    this.wake = () => stopping.abort();
    try {
      await retry(
        async () => {
          if (!(await this.reset())) throw new Error('no configuration from the config server yet');
        },
        {
          ...(this.o.retry ?? { initialMs: 200, maxMs: 5_000 }),
          jitter: true,
          signal: stopping.signal,
          onRetry: (_err, _attempt, delay) =>
            this.o.log.warn({ config_server: this.o.url, retry_in_ms: delay }, 'no configuration from the config server yet; retrying (not registering with a distributor until there is one)'),
        },
      );
    } catch (err) {
      throw new Error('stopped before the config server answered', { cause: err });
    } finally {
      this.wake = undefined;
    }
    this.schedule();
  }

  /** ResetContainer after FlushState. True when the configuration was taken and we are registered. */
  reset(): Promise<boolean> {
    if (!this.current) {
      this.current = this.resetOnce().finally(() => (this.current = undefined));
      return this.current;
    }
    // one runs: run once more after it (every caller meanwhile shares that one)
    this.pending ??= this.current.then(() => {
      this.pending = undefined;
      return this.reset();
    });
    return this.pending;
  }

  /** UnregisterModule (3.7.6), best effort. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    if (!this.registered) return;
    this.registered = false;
    await xmlRpcCall(this.o.url, 'UnregisterModule', [this.module], this.o.callTimeoutMs ?? 3000).then(
      () => this.o.log.info({ config_server: this.o.url }, 'unregistered from the config server'),
      (err: Error) => this.o.log.warn({ config_server: this.o.url, err: err.message }, 'UnregisterModule failed'),
    );
  }

  private async resetOnce(): Promise<boolean> {
    const { log, url } = this.o;
    const timeout = this.o.callTimeoutMs ?? 3000;
    let config: PipelineConfig;
    try {
      const [file, collections] = await Promise.all([
        xmlRpcCall(url, 'LoadConfigFile', [PIPELINES_CONFIG_FILE.module, PIPELINES_CONFIG_FILE.filepath], timeout).then(
          (text) => {
            if (typeof text !== 'string') throw new Error('LoadConfigFile must return a string');
            return JSON.parse(text) as unknown;
          },
          (err: unknown) => {
            if (err instanceof XmlRpcFault && err.faultCode === FAULT_NO_SUCH_FILE) return this.o.fallback();
            throw err;
          },
        ),
        xmlRpcCall(url, 'GetCollections', [], timeout).then(collectionList),
      ]);
      config = pipelineConfigFrom(file, collections);
    } catch (err) {
      log.error({ config_server: url, err: (err as Error).message }, 'ResetContainer: cannot load the configuration from the config server; keeping the current pipelines');
      return false;
    }
    let names: string[];
    try {
      names = this.o.apply(config);
    } catch (err) {
      log.error({ config_server: url, err: (err as Error).message }, 'ResetContainer: the configuration from the config server does not build; keeping the current pipelines');
      return false;
    }
    try {
      await xmlRpcCall(url, 'RegisterModule', [this.module], timeout);
      await xmlRpcCall(url, 'RegisterProcessorPipelines', [[this.o.host, this.o.statusPort], names], timeout);
    } catch (err) {
      this.registered = false;
      log.error({ config_server: url, err: (err as Error).message }, 'ResetContainer: RegisterModule / RegisterProcessorPipelines failed');
      return false;
    }
    if (!this.registered) log.info({ config_server: url, port: this.o.statusPort, pipelines: names }, 'registered with the config server as ProcessorServer');
    this.registered = true;
    this.lost = false;
    return true;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.refresh(), this.o.refreshMs ?? 30_000);
  }

  private async refresh(): Promise<void> {
    if (this.lost) {
      if (await this.reset()) this.o.log.info({ config_server: this.o.url }, 'config server back: configuration reloaded');
    } else {
      try {
        await xmlRpcCall(this.o.url, 'RegisterModule', [this.module], this.o.callTimeoutMs ?? 3000);
      } catch (err) {
        this.lost = true;
        this.o.log.warn({ config_server: this.o.url, err: (err as Error).message }, 'config server not answering; the configuration is reloaded once it is back');
      }
    }
    this.schedule();
  }
}
