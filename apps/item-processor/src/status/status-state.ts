/**
 * The abstract data model of the Status interface (MS-FSDPD 3.7.1): Module Status Table, Last Reset, Item Log Table,
 * Item Operation Sequence Log Table, Content Pipeline and Processing Stage Statistics Tables, Terminating, Tracing.
 * The item processor writes it while it processes; the Status XML-RPC methods read and reset it.
 */
import { RecencyMap } from './recency-map';

export type LogLevel = 'INFO' | 'WARNING' | 'ERROR';
/** LogMessage (2.2.42): verbosity level and message. */
export type LogMessage = readonly [LogLevel, string];

/** One row of the Item Log Table or of the Item Operation Sequence Log Table. */
export interface LogEntry {
  /** "OK", "WARNING" (one or more warnings) or "ERROR" (one or more errors). */
  readonly status: 'OK' | 'WARNING' | 'ERROR';
  /** Last Modified, ms since the epoch. */
  readonly modified: number;
  readonly msgs: readonly LogMessage[];
  /** Seconds spent on the item or sequence. */
  readonly elapsed: number;
}

/** One row of a statistics table (2.2.39 without the memory members, which are read from the OS when asked). */
export interface StatsRow {
  ok: number;
  error: number;
  /** Seconds. */
  work: number;
  user: number;
  system: number;
}

/** "normal" or "debug" (SetLogLevel, 3.7.4.13). */
export type LoggingVerbosity = 'normal' | 'debug';

export interface StatusStateOptions {
  /** Most rows kept in the Item Log Table; the oldest go first (default 10000). */
  maxItemLogs?: number;
  /** Most rows kept in the Item Operation Sequence Log Table (default 1000). */
  maxBatchLogs?: number;
  now?: () => number;
}

/** The level of a log entry: ERROR if any message is an error, else WARNING if any is a warning, else OK. */
export function statusOf(msgs: readonly LogMessage[]): LogEntry['status'] {
  if (msgs.some((m) => m[0] === 'ERROR')) return 'ERROR';
  if (msgs.some((m) => m[0] === 'WARNING')) return 'WARNING';
  return 'OK';
}

const zeroRow = (): StatsRow => ({ ok: 0, error: 0, work: 0, user: 0, system: 0 });

export class StatusState {
  /** Start Time (ms since the epoch), set at initialization (3.7.3). */
  readonly started: number;
  /** Last Reset (ms since the epoch). */
  lastReset: number;
  /** Processing: a batch is being processed. */
  private processingNow = false;
  /** When the Idle timer last started (end of the last batch, or the last reset). */
  private idleSince: number;
  loggingVerbosity: LoggingVerbosity = 'normal';
  terminating = false;
  tracing = false;
  memoryProfile = false;

  readonly itemLog: RecencyMap<string, LogEntry>;
  readonly batchLog: RecencyMap<string, LogEntry>;
  readonly stageStats = new Map<string, StatsRow>();
  readonly pipelineStats = new Map<string, StatsRow>();

  readonly now: () => number;

  constructor(
    /** Names of the stages and pipelines, listed (at zero) after every reset. */
    private known: { stages: readonly string[]; pipelines: readonly string[] } = { stages: [], pipelines: [] },
    opts: StatusStateOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.itemLog = new RecencyMap(opts.maxItemLogs ?? 10_000);
    this.batchLog = new RecencyMap(opts.maxBatchLogs ?? 1_000);
    this.started = this.now();
    this.lastReset = this.started;
    this.idleSince = this.started;
    this.flush();
  }

  get processing(): boolean {
    return this.processingNow;
  }

  /** Sets the Processing entry; leaving processing restarts the Idle timer. */
  setProcessing(on: boolean): void {
    if (this.processingNow && !on) this.idleSince = this.now();
    this.processingNow = on;
  }

  /** Idle Time in seconds: 0 while processing, else since the last batch ended or the last reset. */
  idleSeconds(): number {
    return this.processingNow ? 0 : Math.max(0, Math.floor((this.now() - this.idleSince) / 1000));
  }

  /** Verbosity of ModuleStatus (2.2.40): 3 when attribute changes are logged (tracing or debug), else 2. */
  verbosityLevel(): 2 | 3 {
    return this.tracing || this.loggingVerbosity === 'debug' ? 3 : 2;
  }

  /** New stage and pipeline names (after a configuration reload), listed from the next reset on. */
  setKnown(known: { stages: readonly string[]; pipelines: readonly string[] }): void {
    this.known = known;
  }

  /**
   * FlushState (3.7.4.4): clears the log and statistics tables, restarts the Idle timer and sets Last Reset. Start
   * Time, Logging Verbosity, Tracing and Terminating are settings, not accumulated state, and are kept.
   */
  flush(): void {
    this.itemLog.clear();
    this.batchLog.clear();
    this.stageStats.clear();
    this.pipelineStats.clear();
    for (const s of this.known.stages) this.stageStats.set(s, zeroRow());
    for (const p of this.known.pipelines) this.pipelineStats.set(p, zeroRow());
    this.lastReset = this.now();
    if (!this.processingNow) this.idleSince = this.lastReset;
  }

  logItem(id: string, entry: LogEntry): void {
    this.itemLog.write(id, entry);
  }

  logBatch(id: string, entry: LogEntry): void {
    this.batchLog.write(id, entry);
  }

  private add(table: Map<string, StatsRow>, name: string, ok: boolean, t: { work: number; user: number; system: number }): void {
    let row = table.get(name);
    if (!row) table.set(name, (row = zeroRow()));
    if (ok) row.ok++;
    else row.error++;
    row.work += t.work;
    row.user += t.user;
    row.system += t.system;
  }

  addStage(name: string, ok: boolean, t: { work: number; user: number; system: number }): void {
    this.add(this.stageStats, name, ok, t);
  }

  addPipeline(name: string, ok: boolean, t: { work: number; user: number; system: number }): void {
    this.add(this.pipelineStats, name, ok, t);
  }
}
