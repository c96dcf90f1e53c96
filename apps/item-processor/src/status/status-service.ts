import { XmlRpcDouble, XmlRpcFault, XMLRPC_INT_MAX, type XmlRpcInput, type XmlRpcInputStruct, type XmlRpcValue } from '@esp/codecs';
import { FAULT_INTERNAL_ERROR, FAULT_INVALID_PARAMS, FAULT_INVALID_REQUEST, FAULT_METHOD_NOT_FOUND, FAULT_PARSE_ERROR } from '@esp/xmlrpc-http';
import { processMemory, type ProcessMemory } from './process-memory';
import type { LogEntry, StatsRow, StatusState } from './status-state';

/** Fault codes (the XML-RPC "fault code interoperability" values for transport and call errors), shared. */
export { FAULT_INTERNAL_ERROR, FAULT_INVALID_PARAMS, FAULT_INVALID_REQUEST, FAULT_METHOD_NOT_FOUND, FAULT_PARSE_ERROR };
/** GetBatchStatus of an id the Item Operation Sequence Log Table does not hold. */
export const FAULT_NO_SUCH_BATCH = 1;

/** What the Status methods do beyond reading and writing the tables. */
export interface StatusHooks {
  /**
   * ResetContainer (3.7.4.3) after FlushState: reinitialize with the configuration as it is now (the pipeline
   * configuration file is read again, or fetched from the config server). Returns false when that failed (the old
   * configuration stays); a promise when it has to ask the network, and then ResetContainer answers once it is done.
   */
  reinitialize(): boolean | Promise<boolean>;
  /** Shutdown (3.7.4.14): Terminating is set; the app may then stop. */
  shutdownRequested(): void;
  /** LeakDetect (3.7.4.5): log what is known about memory. */
  leakDetect(memory: ProcessMemory): void;
}

type ParamType = 'int' | 'string' | 'any';
interface MethodSpec {
  readonly params: readonly { readonly name: string; readonly type: ParamType; readonly optional?: boolean }[];
  readonly run: (args: XmlRpcValue[]) => XmlRpcInput | Promise<XmlRpcInput>;
}

/** Code points XML 1.0 cannot hold (in u mode a lone surrogate is a code point of its own, so it matches too). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** A string XML 1.0 can carry: characters it cannot hold (controls, lone surrogates) become U+FFFD. */
export function xmlSafe(s: string): string {
  return s.replace(NOT_XML, '\uFFFD');
}

/** An XML-RPC int: 32-bit, so larger counts (memory in bytes on a big machine) saturate at 2^31 - 1. */
function xmlInt(n: number): number {
  return Math.min(XMLRPC_INT_MAX, Math.max(0, Math.round(n)));
}

function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

function typeName(v: XmlRpcValue): string {
  if (v === null) return 'nil';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (typeof v === 'string' || typeof v === 'boolean') return typeof v === 'string' ? 'string' : 'boolean';
  if (v instanceof XmlRpcDouble) return 'double';
  if (v instanceof Date) return 'dateTime';
  if (v instanceof Uint8Array) return 'base64';
  return Array.isArray(v) ? 'array' : 'struct';
}

function fits(v: XmlRpcValue, t: ParamType): boolean {
  if (t === 'any') return true;
  return t === 'int' ? typeof v === 'number' && Number.isInteger(v) : typeof v === 'string';
}

/** ItemLog (2.2.43). */
export function itemLogStruct(e: LogEntry): XmlRpcInputStruct {
  return {
    Status: e.status,
    Modified: seconds(e.modified),
    Msgs: e.msgs.map(([level, text]) => [level, xmlSafe(text)]),
    Elapsed: xmlInt(e.elapsed),
  };
}

/** ProcessingStatistics (2.2.39): the table row plus what the OS says about memory now. */
function processingStatistics(row: StatsRow, mem: ProcessMemory): XmlRpcInputStruct {
  return {
    OK: xmlInt(row.ok),
    ERROR: xmlInt(row.error),
    WorkTime: new XmlRpcDouble(row.work),
    UserTime: new XmlRpcDouble(row.user),
    SystemTime: new XmlRpcDouble(row.system),
    PageSwaps: xmlInt(mem.pageSwaps),
    VirtualMem: xmlInt(mem.virtualMem),
    ResidentMem: xmlInt(mem.residentMem),
    MemUsage: xmlInt(mem.memUsage),
  };
}

function statsMap(table: ReadonlyMap<string, StatsRow>, mem: ProcessMemory): XmlRpcInputStruct {
  const out: Record<string, XmlRpcInputStruct> = {};
  for (const [name, row] of table) out[xmlSafe(name)] = processingStatistics(row, mem);
  return out;
}

/** The Status methods that change the processor's state: they need the admin secret (see @esp/xmlrpc-http). */
export const STATUS_STATE_CHANGING = new Set(['ConfigurationChanged', 'ResetContainer', 'FlushState', 'LeakDetect', 'SetMemoryProfile', 'SetDocumentTracing', 'SetLogLevel', 'Shutdown']);

/**
 * The fifteen methods of the Status interface (MS-FSDPD 3.7.4) over the Status tables. `call` checks the
 * parameters and throws an XmlRpcFault that says what was expected for an unknown method or wrong parameters.
 */
export class StatusService {
  private readonly methods: Record<string, MethodSpec>;

  constructor(
    private readonly state: StatusState,
    private readonly hooks: StatusHooks,
  ) {
    this.methods = {
      ConfigurationChanged: {
        params: [
          { name: 'alert_type', type: 'string' },
          { name: 'alert_args', type: 'any', optional: true },
        ],
        run: ([type, args]) => {
          // a configfile alert resets only for the DocumentProcessor's reload file; any other alert always resets
          const reload = Array.isArray(args) && args.length === 2 && args[0] === 'DocumentProcessor' && args[1] === 'webcluster/reload_configfiles';
          return type !== 'configfile' || reload ? this.resetContainer() : 1;
        },
      },
      GetModuleStatus: { params: [], run: () => this.moduleStatus() },
      ResetContainer: { params: [], run: () => this.resetContainer() },
      FlushState: { params: [], run: () => this.flushState() },
      LeakDetect: { params: [], run: () => (this.hooks.leakDetect(processMemory()), 1) },
      GetStatistics: { params: [], run: () => this.statistics() },
      SetMemoryProfile: {
        params: [{ name: 'level', type: 'int' }],
        run: ([level]) => ((this.state.memoryProfile = level !== 0), 1),
      },
      SetDocumentTracing: {
        params: [{ name: 'level', type: 'int' }],
        run: ([level]) => ((this.state.tracing = level !== 0), 1),
      },
      GetDocumentStatusLogs: {
        // no parameter in the spec; an item identifier (ours) narrows it to that item
        params: [{ name: 'uri', type: 'string', optional: true }],
        run: ([uri]) => this.documentLogs(uri as string | undefined),
      },
      GetDocumentStatusURIs: { params: [], run: () => [...this.state.itemLog.keys()].map(xmlSafe) },
      GetBatchStatus: {
        params: [{ name: 'batchid', type: 'int' }],
        run: ([id]) => {
          const e = this.state.batchLog.get(String(id));
          if (!e) throw new XmlRpcFault(FAULT_NO_SUCH_BATCH, `no log of batch ${String(id)}; GetBatchStatusIDs lists the ones kept`);
          return itemLogStruct(e);
        },
      },
      GetBatchStatusIDs: { params: [], run: () => [...this.state.batchLog.keys()] },
      SetLogLevel: {
        params: [{ name: 'level', type: 'string' }],
        run: ([level]) => {
          if (level !== 'normal' && level !== 'debug') {
            throw new XmlRpcFault(FAULT_INVALID_PARAMS, `SetLogLevel: level must be "normal" or "debug", got ${JSON.stringify(level)}`);
          }
          this.state.loggingVerbosity = level;
          return 1;
        },
      },
      Shutdown: {
        params: [],
        run: () => {
          this.state.terminating = true;
          this.hooks.shutdownRequested();
          return 1;
        },
      },
      ping: { params: [], run: () => 'pong' },
    };
  }

  /** The method names, for system.listMethods. */
  methodNames(): string[] {
    return Object.keys(this.methods);
  }

  call(method: string, params: XmlRpcValue[]): XmlRpcInput | Promise<XmlRpcInput> {
    if (method === 'system.listMethods' && params.length === 0) return [...this.methodNames(), 'system.listMethods'];
    const spec = Object.prototype.hasOwnProperty.call(this.methods, method) ? this.methods[method] : undefined;
    if (!spec) throw new XmlRpcFault(FAULT_METHOD_NOT_FOUND, `unknown method ${JSON.stringify(method)}; the Status interface has ${this.methodNames().join(', ')}`);
    const signature = `${method}(${spec.params.map((p) => `${p.type} ${p.name}${p.optional ? '?' : ''}`).join(', ')})`;
    const required = spec.params.filter((p) => !p.optional).length;
    if (params.length < required || params.length > spec.params.length) {
      throw new XmlRpcFault(FAULT_INVALID_PARAMS, `${signature} takes ${required === spec.params.length ? required : `${required} to ${spec.params.length}`} parameters, got ${params.length}`);
    }
    params.forEach((v, i) => {
      const p = spec.params[i];
      if (p && !fits(v, p.type)) throw new XmlRpcFault(FAULT_INVALID_PARAMS, `${signature}: parameter ${p.name} must be ${p.type}, got ${typeName(v)}`);
    });
    return spec.run(params);
  }

  /** ResetContainer: FlushState, then reinitialize with the current configuration; 1 (the spec's only answer) when done. */
  private resetContainer(): 1 | Promise<1> {
    this.flushState();
    const done = this.hooks.reinitialize();
    return done instanceof Promise ? done.then(() => 1 as const, () => 1 as const) : 1;
  }

  private flushState(): number {
    try {
      this.state.flush();
      return 1;
    } catch {
      return 0;
    }
  }

  /** ModuleStatus (2.2.40). */
  private moduleStatus(): XmlRpcInputStruct {
    const now = this.state.now();
    return {
      Started: seconds(this.state.started),
      IdleTime: xmlInt(this.state.idleSeconds()),
      Uptime: xmlInt(seconds(now - this.state.started)),
      CurrentWork: this.state.processing ? 1 : 0,
      Verbosity: this.state.verbosityLevel(),
    };
  }

  /** Statistics (2.2.41): Elapsed since Last Reset and [stage map, pipeline map]. */
  private statistics(): XmlRpcInputStruct {
    const mem = processMemory();
    return {
      Elapsed: xmlInt(seconds(this.state.now() - this.state.lastReset)),
      Statistics: [statsMap(this.state.stageStats, mem), statsMap(this.state.pipelineStats, mem)],
    };
  }

  /** ItemStatusLog (2.2.44): ItemLog structures, each with the item identifier it belongs to as "URI" (ours). */
  private documentLogs(uri: string | undefined): XmlRpcInput {
    const one = uri === undefined ? undefined : this.state.itemLog.get(uri);
    const rows: [string, LogEntry][] = uri === undefined ? [...this.state.itemLog] : one ? [[uri, one]] : [];
    return rows.map(([id, e]) => ({ ...itemLogStruct(e), URI: xmlSafe(id) }));
  }
}
