/**
 * Small stand-ins for the peers of an item processor, served on the real bus: a content distributor (master_dispatcher
 * and procserver_handler objects, bound in the name server) and an indexing session. They record every call.
 */
import type { OperationSet, OperationStatusInfo } from '@esp/codecs';
import {
  DISPATCHER_NAME,
  SystemResourceError,
  coreSessionInterface,
  dispatcherNodeName,
  masterDispatcherInterface,
  procserverHandlerInterface,
  processorServerInterface,
  type Aor,
  type InterfaceDef,
  type ProxyOf,
} from '@esp/interfaces';
import { InternalError, type Middleware, type ServerObject } from '@esp/middleware';
import { waitFor } from '@esp/testing';

export interface RecordedCall {
  readonly obj: 'master' | 'handler';
  readonly method: string;
  readonly args: readonly unknown[];
}

export interface ProcessedCall {
  readonly name: string;
  readonly completed: boolean;
  readonly status: OperationStatusInfo;
}

let distributorSeq = 0;

export class FakeDistributor {
  readonly calls: RecordedCall[] = [];
  readonly processed: ProcessedCall[] = [];
  /** processor_server AORs by item processor name, as registered. */
  readonly procservers = new Map<string, Aor>();
  private readonly failures = new Map<string, number>();
  private readonly objects: ServerObject<InterfaceDef>[] = [];
  private handlerObj: ServerObject<typeof procserverHandlerInterface> | undefined;
  private readonly bound: [string, string][] = [];

  private constructor(
    private readonly mw: Middleware,
    readonly dispatcherId: number,
  ) {}

  /**
   * Activates master_dispatcher and procserver_handler and binds them (the handler at dispatcherNodeName of
   * `dispatcherId`). With `bindHandler: false` the handler is activated but not bound until bindHandler().
   */
  static async start(mw: Middleware, opts: { dispatcherId?: number; bindHandler?: boolean } = {}): Promise<FakeDistributor> {
    const cd = new FakeDistributor(mw, opts.dispatcherId ?? 0);
    const seq = ++distributorSeq;
    const record = (obj: RecordedCall['obj'], method: string, args: unknown[]) => {
      cd.calls.push({ obj, method, args });
      const key = `${obj}.${method}`;
      const n = cd.failures.get(key) ?? 0;
      if (n > 0) {
        cd.failures.set(key, n - 1);
        throw new InternalError(`injected failure of ${key}`);
      }
    };
    const master = await mw.activate(
      masterDispatcherInterface,
      {
        register_dispatcher: (id) => record('master', 'register_dispatcher', [id]),
        unregister_dispatcher: (id) => record('master', 'unregister_dispatcher', [id]),
        register_procserver: (name) => record('master', 'register_procserver', [name]),
        assign_dispatcher: (name) => {
          record('master', 'assign_dispatcher', [name]);
          return cd.dispatcherId;
        },
        unregister_procserver: (name) => record('master', 'unregister_procserver', [name]),
      },
      { object_id: `master_dispatcher/${seq}`, port: 13390 },
    );
    const handler = await mw.activate(
      procserverHandlerInterface,
      {
        register_procserver: (procserver, name, hostname, pid, priority) => {
          record('handler', 'register_procserver', [procserver, name, hostname, pid, priority]);
          cd.procservers.set(name, procserver);
        },
        unregister_procserver: (name) => {
          record('handler', 'unregister_procserver', [name]);
          cd.procservers.delete(name);
        },
        processed: (name, completed, status) => {
          record('handler', 'processed', [name, completed, status]);
          cd.processed.push({ name, completed, status });
        },
        flush_pipelines: () => record('handler', 'flush_pipelines', []),
        renew: (name, period) => record('handler', 'renew', [name, period]),
      },
      { object_id: `procserver_handler/${seq}`, port: 13390 },
    );
    cd.objects.push(master as unknown as ServerObject<InterfaceDef>, handler as unknown as ServerObject<InterfaceDef>);
    cd.handlerObj = handler;
    await mw.names.bind(DISPATCHER_NAME, master.aor);
    cd.bound.push([DISPATCHER_NAME, masterDispatcherInterface.type]);
    if (opts.bindHandler ?? true) await cd.bindHandler();
    return cd;
  }

  async bindHandler(): Promise<void> {
    const name = dispatcherNodeName(this.dispatcherId);
    await this.mw.names.bind(name, this.handlerObj!.aor);
    this.bound.push([name, procserverHandlerInterface.type]);
  }

  /** The next `times` calls of `obj.method` fail with a system exception (internal_error). */
  failNext(key: `${RecordedCall['obj']}.${string}`, times = 1): void {
    this.failures.set(key, times);
  }

  /** The calls so far as "obj.method(name)" strings (name = the item processor name argument). */
  log(filter?: (c: RecordedCall) => boolean): string[] {
    return this.calls.filter(filter ?? (() => true)).map((c) => {
      const name = c.obj === 'handler' && (c.method === 'register_procserver') ? c.args[1] : c.args[0];
      return `${c.obj}.${c.method}(${String(name)})`;
    });
  }

  logOf(name: string): string[] {
    return this.log((c) => (c.obj === 'handler' && c.method === 'register_procserver' ? c.args[1] : c.args[0]) === name);
  }

  /** Waits until the calls of `name` number at least `n`. */
  async waitForCalls(name: string, n: number, timeoutMs = 10_000): Promise<string[]> {
    await waitFor(() => this.logOf(name).length >= n, { timeoutMs, what: `${n} calls of ${name} (have ${this.logOf(name).join(', ')})` });
    return this.logOf(name);
  }

  async nextProcessed(from: number, timeoutMs = 10_000): Promise<ProcessedCall> {
    return waitFor(() => this.processed[from], { timeoutMs, what: `processed #${from + 1}` });
  }

  /** A processor_server proxy of the item processor registered as `name`. */
  processor(name: string): ProxyOf<typeof processorServerInterface> {
    const aor = this.procservers.get(name);
    if (!aor) throw new Error(`${name} is not registered`);
    return this.mw.proxy(processorServerInterface, aor);
  }

  async stop(): Promise<void> {
    for (const [name, type] of this.bound) await this.mw.names.unbind(name, type).catch(() => undefined);
    for (const o of this.objects) await this.mw.deactivate(o);
  }
}

let indexerSeq = 0;

/** An indexing session (coreprocessing::session) that records the batches it gets. */
export class FakeIndexer {
  readonly batches: OperationSet[] = [];
  /** How many calls get system_resource_error before one is accepted. */
  refuse = 0;
  refused = 0;
  /** While set, process waits for it (a slow indexer). */
  gate: Promise<void> | undefined;
  aor!: Aor;
  private obj: ServerObject<typeof coreSessionInterface> | undefined;

  static async start(mw: Middleware): Promise<FakeIndexer> {
    const ix = new FakeIndexer();
    ix.obj = await mw.activate(
      coreSessionInterface,
      {
        process: async (batch) => {
          if (ix.refuse > 0) {
            ix.refuse--;
            ix.refused++;
            throw new SystemResourceError('indexing queue full', { what: 'queue full' });
          }
          if (ix.gate) await ix.gate;
          ix.batches.push(batch);
        },
      },
      { object_id: `core_session/${++indexerSeq}`, port: 13390 },
    );
    ix.aor = ix.obj.aor;
    return ix;
  }

  /** Makes process wait until the returned function is called. */
  hold(): () => void {
    let release: () => void = () => undefined;
    this.gate = new Promise<void>((r) => (release = r));
    return () => {
      this.gate = undefined;
      release();
    };
  }
}
