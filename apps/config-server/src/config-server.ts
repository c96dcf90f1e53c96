import { readFileSync } from 'node:fs';
import { XmlRpcFault, type XmlRpcInput, type XmlRpcStruct, type XmlRpcValue } from '@esp/codecs';
import { AlreadyBound, CONFIG_SERVICE_NAME, configServiceInterface, SystemResourceError, type CollectionRecord, type Implementation, type ModuleRecord } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { ObjectNotExist, type Middleware, type ServerObject } from '@esp/middleware';
import { configFilePath, ConfigError, fingerprint, readCollections, writeCollections } from './config-store';
import { checkCollectionPipelines, pipelineChanges, readPipelines, type PipelineDefinitions } from './pipeline-store';
import { FAULT_INVALID_PARAMS, methodTable, typeName, xmlRpcCall } from '@esp/xmlrpc-http';
import { isOwnAddress } from './module-address';
import { DEFAULT_MAX_MODULES, FAULT_REGISTRY_FULL, ModuleRegistry } from './module-registry';

/** LoadConfigFile of a file that is not there, or outside the config directory. */
export const FAULT_NO_SUCH_FILE = 1;
/** ReloadConfig of a configuration that does not validate (the previous one stays). */
export const FAULT_INVALID_CONFIG = 2;
/** RegisterModule or RegisterProcessorPipelines naming a host that is not the caller's. */
export const FAULT_NOT_CALLER_ADDRESS = 4;

/** The methods that change the server's state: they need the admin secret (see @esp/xmlrpc-http). */
export const CONFIG_STATE_CHANGING = new Set(['RegisterModule', 'UnregisterModule', 'RegisterProcessorPipelines', 'ReloadConfig']);

export interface ConfigServerOptions {
  log: Logger;
  /** The config directory (collections.json, <module>/<filepath> files); none: no collections, no files. */
  configDir?: string;
  /** Deadline of one ConfigurationChanged alert (default 5 s). */
  alertTimeoutMs?: number;
  /** Modules registered at most (default 1,000); more are refused until some expire. */
  maxModules?: number;
  /** A module that did not register again for this long is dropped (default 120 s). */
  moduleTtlMs?: number;
}

/** Refuses a host that is not the caller's own address (module-address.ts). */
async function checkOwnAddress(method: string, host: string, caller: string): Promise<void> {
  if (!(await isOwnAddress(host, caller))) {
    throw new XmlRpcFault(FAULT_NOT_CALLER_ADDRESS, `${method}: host "${host}" is not the caller's address (${caller}); a module registers only itself`);
  }
}

/** Reads a ModuleRegister struct (MS-FSDPD 3.7.4.3: port, type, version, name, alerts; optional host, ours). */
function moduleRegister(v: XmlRpcValue, caller: string): Omit<ModuleRecord, 'registered_at'> {
  const s = v as XmlRpcStruct;
  const bad = (member: string, want: string) => new XmlRpcFault(FAULT_INVALID_PARAMS, `ModuleRegister.${member} must be ${want}, got ${member in s ? typeName(s[member] as XmlRpcValue) : 'nothing'}`);
  const port = s['port'];
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) throw bad('port', 'an int from 1 to 65535');
  for (const m of ['type', 'version', 'name'] as const) if (typeof s[m] !== 'string') throw bad(m, 'string');
  const alerts = s['alerts'] ?? [];
  if (!Array.isArray(alerts) || !alerts.every((a) => typeof a === 'string')) throw bad('alerts', 'an array of strings');
  const host = s['host'];
  if (host !== undefined && (typeof host !== 'string' || !host)) throw bad('host', 'a non-empty string');
  return { port, type: s['type'] as string, version: s['version'] as string, name: s['name'] as string, alerts: alerts as string[], host: (host as string | undefined) ?? caller };
}

/**
 * The config server: a registry of modules (XML-RPC RegisterModule / UnregisterModule), the collections of the
 * config directory, config files (LoadConfigFile / LoadConfigFileBase64), processor pipelines
 * (RegisterProcessorPipelines), ConfigurationChanged alerts to the modules that asked for them, and
 * `configservice::config` 5.2 at "fds/configservice" on the middleware.
 */
export class ConfigServer {
  private readonly modules: ModuleRegistry;
  private readonly pipelines = new Map<string, { host: string; port: number; pipelines: string[] }>();
  private collections: CollectionRecord[] = [];
  private pipelineDefs: PipelineDefinitions | undefined;
  private object: ServerObject<typeof configServiceInterface> | undefined;

  constructor(private readonly opts: ConfigServerOptions) {
    this.modules = new ModuleRegistry({ maxModules: opts.maxModules, ttlMs: opts.moduleTtlMs });
    if (opts.configDir) ({ collections: this.collections, pipelines: this.pipelineDefs } = ConfigServer.readConfig(opts.configDir));
  }

  /** Reads and checks the whole configuration (collections and pipelines) before any of it is taken. */
  private static readConfig(dir: string): { collections: CollectionRecord[]; pipelines: PipelineDefinitions | undefined } {
    const collections = readCollections(dir);
    const pipelines = readPipelines(dir);
    checkCollectionPipelines(collections, pipelines);
    return { collections, pipelines };
  }

  /** The pipelines of <config-dir>/DocumentProcessor/pipelines.json (none without that file). */
  get pipelineNames(): string[] {
    return [...(this.pipelineDefs?.fingerprints.keys() ?? [])];
  }

  get collectionNames(): string[] {
    return this.collections.map((c) => c.name);
  }

  activeModules(type: string): ModuleRecord[] {
    return this.modules.active().filter((m) => m.type === type);
  }

  /** The middleware side: activates configservice::config and binds it at fds/configservice (taking over a dead binding). */
  async serve(mw: Middleware, port: number): Promise<void> {
    const impl: Implementation<typeof configServiceInterface> = {
      get_active_module_list: (type) => this.activeModules(type),
      get_collections: () => this.collections,
      add_collection: (name, pipeline) => this.addCollection(name, pipeline),
    };
    this.object = await mw.activate(configServiceInterface, impl, { object_id: 'configservice', port, name: CONFIG_SERVICE_NAME });
    const aor = this.object.aor;
    try {
      await mw.names.bind(CONFIG_SERVICE_NAME, aor);
    } catch (err) {
      if (!(err instanceof AlreadyBound)) throw err;
      // a binding is there: another config server's, or a dead one's (then take it over)
      const held = await mw.names.resolve(CONFIG_SERVICE_NAME, configServiceInterface.type, configServiceInterface.version);
      const alive = await mw
        .proxy(configServiceInterface, held.aor, { timeoutMs: 3000 })
        .__ping()
        .then(
          () => true,
          (e: unknown) => !(e instanceof ObjectNotExist),
        );
      if (alive) throw new Error(`another config server is bound at ${CONFIG_SERVICE_NAME} (${held.aor.host}:${held.aor.port})`, { cause: err });
      this.opts.log.warn({ holder: held.aor }, 'taking over the binding of a config server that is gone');
      await mw.names.unbind(CONFIG_SERVICE_NAME, configServiceInterface.type, held.revision);
      await mw.names.bind(CONFIG_SERVICE_NAME, aor);
    }
    this.opts.log.info({ name: CONFIG_SERVICE_NAME, interface: configServiceInterface.type, version: configServiceInterface.version }, 'bound');
  }

  /** Unbinds (only our own binding) on shutdown. */
  async unbind(mw: Middleware): Promise<void> {
    if (!this.object) return;
    try {
      const b = await mw.names.resolve(CONFIG_SERVICE_NAME, configServiceInterface.type, configServiceInterface.version);
      if (b.aor.host === this.object.aor.host && b.aor.port === this.object.aor.port && b.aor.object_id === this.object.aor.object_id) {
        await mw.names.unbind(CONFIG_SERVICE_NAME, configServiceInterface.type, b.revision);
      }
    } catch (err) {
      this.opts.log.debug({ err: (err as Error).message }, 'unbind on shutdown failed');
    }
  }

  /**
   * Adds a collection to <config-dir>/collections.json (with the default pipeline when none is named) and reloads,
   * so that every module learns it through the usual alert; a collection already there is left as it is.
   */
  async addCollection(name: string, pipeline: string): Promise<{ added: boolean; collections: CollectionRecord[] }> {
    const dir = this.opts.configDir;
    if (!dir) throw new SystemResourceError('the config server has no config directory to add a collection to');
    if (this.collections.some((c) => c.name === name)) return { added: false, collections: this.collections };
    const record = { name, pipeline: pipeline || (this.pipelineDefs?.defaultPipeline ?? 'default') };
    const current = readCollections(dir);
    try {
      writeCollections(dir, [...current.filter((c) => c.name !== name), record]);
      await this.reload();
    } catch (err) {
      // the file as it was: a collection that does not validate (an unknown pipeline) must not break the next reload
      writeCollections(dir, current);
      throw new SystemResourceError(`collection "${name}" not added: ${(err as Error).message}`, {}, { cause: err });
    }
    this.opts.log.info({ collection: name, pipeline: record.pipeline }, 'collection added');
    return { added: true, collections: this.collections };
  }

  /**
   * Reads the config directory again. A configuration that does not validate is refused (ConfigError) and the
   * previous one stays. Then the modules that asked for them get ConfigurationChanged alerts (MS-FSDPD 3.7.4.1):
   * "collection" with the collection names when the collection list changed, "pipeline_added" /
   * "pipeline_modified" / "pipeline_removed" with the names of the pipelines concerned, "pipelines" with all names
   * when the default pipeline changed. Resolves once every alert was answered (or failed), so that a caller of
   * ReloadConfig knows the running item processors have reset (ResetContainer) by then.
   */
  async reload(): Promise<{ changed: boolean; collections: string[]; pipelines: string[] }> {
    if (!this.opts.configDir) return { changed: false, collections: [], pipelines: [] };
    const next = ConfigServer.readConfig(this.opts.configDir);
    const collectionsChanged = fingerprint(next.collections) !== fingerprint(this.collections);
    const changes = pipelineChanges(this.pipelineDefs, next.pipelines);
    const defaultChanged = this.pipelineDefs?.defaultPipeline !== next.pipelines?.defaultPipeline;
    this.collections = next.collections;
    this.pipelineDefs = next.pipelines;
    const changed = collectionsChanged || defaultChanged || Object.values(changes).some((n) => n.length > 0);
    this.opts.log.info({ collections: this.collectionNames, pipelines: this.pipelineNames, changed, ...changes }, 'configuration reloaded');
    // sent one after the other: a module that subscribes to several resets once per alert, never concurrently
    if (collectionsChanged) await this.alert('collection', this.collectionNames);
    for (const [type, names] of Object.entries(changes)) if (names.length > 0) await this.alert(type, names);
    if (defaultChanged) await this.alert('pipelines', this.pipelineNames);
    return { changed, collections: this.collectionNames, pipelines: this.pipelineNames };
  }

  /** ConfigurationChanged(alert_type, alert_args) to every module that asked for alert_type (MS-FSDPD 3.7.4.1). */
  async alert(alertType: string, args: XmlRpcInput): Promise<{ sent: number; failed: number }> {
    const targets = this.modules.active().filter((m) => m.alerts.includes(alertType));
    const results = await Promise.all(
      targets.map((m) =>
        xmlRpcCall(`http://${m.host.includes(':') ? `[${m.host}]` : m.host}:${m.port}/RPC2`, 'ConfigurationChanged', [alertType, args], this.opts.alertTimeoutMs ?? 5000).then(
          () => true,
          (err: Error) => {
            // nothing listens on its port any more: the module is gone (killed, restarted elsewhere); a live one
            // registers again within its refresh interval
            const gone = (err.cause as { code?: string } | undefined)?.code === 'ECONNREFUSED';
            if (gone) this.modules.unregister(m);
            this.opts.log.warn({ module: m.name, type: m.type, host: m.host, port: m.port, alert: alertType, err: err.message, removed: gone }, gone ? 'ConfigurationChanged alert refused: module gone, unregistered' : 'ConfigurationChanged alert failed');
            return false;
          },
        ),
      ),
    );
    const sent = results.filter(Boolean).length;
    this.opts.log.info({ alert: alertType, sent, failed: results.length - sent }, 'ConfigurationChanged sent');
    return { sent, failed: results.length - sent };
  }

  private loadFile(module: string, filepath: string): Buffer {
    if (!this.opts.configDir) throw new XmlRpcFault(FAULT_NO_SUCH_FILE, 'this config server has no config directory');
    try {
      return readFileSync(configFilePath(this.opts.configDir, module, filepath));
    } catch (err) {
      const why = err instanceof ConfigError ? err.message : `no config file "${module}/${filepath}"`;
      throw new XmlRpcFault(FAULT_NO_SUCH_FILE, why);
    }
  }

  /** The XML-RPC methods (MS-FSDPD 3.7.4.3 and 3.7.6 name them; MS-FSCX, which defines them, is not among our specs). */
  xmlRpc(): (method: string, params: XmlRpcValue[], caller: { address: string }) => Promise<XmlRpcInput> {
    const log = this.opts.log;
    return methodTable<{ address: string }>('config server', {
      RegisterModule: {
        params: [{ name: 'module', type: 'struct' }],
        run: async ([m], caller) => {
          const rec = moduleRegister(m as XmlRpcValue, caller.address);
          await checkOwnAddress('RegisterModule', rec.host, caller.address);
          if (this.modules.register(rec)) log.info({ module: rec.name, type: rec.type, host: rec.host, port: rec.port, alerts: rec.alerts }, 'module registered');
          return 1;
        },
      },
      UnregisterModule: {
        params: [{ name: 'module', type: 'struct' }],
        run: ([m], caller) => {
          const rec = moduleRegister(m as XmlRpcValue, caller.address);
          if (this.modules.unregister(rec)) log.info({ module: rec.name, type: rec.type, host: rec.host, port: rec.port }, 'module unregistered');
          return 1;
        },
      },
      LoadConfigFile: {
        params: [
          { name: 'module', type: 'string' },
          { name: 'filepath', type: 'string' },
        ],
        run: ([module, filepath]) => this.loadFile(module as string, filepath as string).toString('utf8'),
      },
      LoadConfigFileBase64: {
        params: [
          { name: 'module', type: 'string' },
          { name: 'filepath', type: 'string' },
        ],
        run: ([module, filepath]) => new Uint8Array(this.loadFile(module as string, filepath as string)),
      },
      RegisterProcessorPipelines: {
        params: [
          { name: 'processorserver', type: 'array' },
          { name: 'pipelines', type: 'string[]' },
        ],
        run: async ([server, pipelines], caller) => {
          const [host, port] = server as XmlRpcValue[];
          if ((server as XmlRpcValue[]).length !== 2 || typeof host !== 'string' || typeof port !== 'number' || !Number.isInteger(port)) {
            throw new XmlRpcFault(FAULT_INVALID_PARAMS, 'RegisterProcessorPipelines: processorserver must be [string host, int port]');
          }
          if (host) await checkOwnAddress('RegisterProcessorPipelines', host, caller.address);
          if (!this.pipelines.has(`${host}:${port}`) && this.pipelines.size >= (this.opts.maxModules ?? DEFAULT_MAX_MODULES)) {
            throw new XmlRpcFault(FAULT_REGISTRY_FULL, `RegisterProcessorPipelines: ${this.pipelines.size} processor servers are registered already`);
          }
          this.pipelines.set(`${host}:${port}`, { host: host || caller.address, port, pipelines: pipelines as string[] });
          log.info({ host, port, pipelines }, 'processor pipelines registered');
          return 1;
        },
      },
      GetActiveModuleList: {
        params: [{ name: 'module_type_name', type: 'string' }],
        run: ([type]) => this.activeModules(type as string).map((m) => ({ ...m, registered_at: Math.floor(m.registered_at / 1000) })),
      },
      GetCollections: {
        // ours (MS-FSCX, which defines the config server, is not among our specs): what get_collections gives on the middleware
        params: [],
        run: () => this.collections.map((c) => ({ name: c.name, pipeline: c.pipeline })),
      },
      ReloadConfig: {
        params: [],
        run: async () => {
          try {
            return await this.reload();
          } catch (err) {
            if (err instanceof ConfigError) throw new XmlRpcFault(FAULT_INVALID_CONFIG, `${err.message} (the previous configuration stays)`);
            throw err;
          }
        },
      },
      ping: { params: [], run: () => 'pong' },
    });
  }
}
