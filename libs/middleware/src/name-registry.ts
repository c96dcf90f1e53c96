import {
  AlreadyBound,
  ResolveException,
  aorSchema,
  nameServerInterface,
  sameObject,
  versionCompatible,
  type Aor,
  type Binding,
  type Implementation,
} from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { retry } from '@esp/timers';
import { JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import { KvWatchInclude, Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { bindingKey, parseBindingKey } from './name-key';
import { NAME_BUCKET } from './subjects';

const WRONG_LAST_SEQUENCE = new Set([10071, 10164]);

function isRevisionConflict(err: unknown): boolean {
  return err instanceof JetStreamApiError && WRONG_LAST_SEQUENCE.has(err.code);
}

interface StoredBinding {
  aor: Aor;
  bound_at: string;
}

function decodeStored(bytes: Uint8Array): StoredBinding | undefined {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as StoredBinding;
    return aorSchema.safeParse(v.aor).success ? v : undefined;
  } catch {
    return undefined;
  }
}

function sameAor(a: Aor, b: Aor): boolean {
  return sameObject(a, b) && a.interface_version === b.interface_version && a.name === b.name;
}

/**
 * A read of the bucket, tried again while JetStream answers "timeout": on a cluster, the stream's leader being
 * elected after a server died takes a few seconds, and a resolve in that window should wait it out rather than fail.
 */
function readAgain<T>(read: () => Promise<T>): Promise<T> {
  return retry(read, { deadlineMs: 8_000, initialMs: 100, maxMs: 1_000, retryable: (err) => /timeout|no responders/i.test((err as Error)?.message ?? '') });
}

export interface NameRegistryOptions {
  /** JetStream replicas of the bindings bucket (3 on a three-server cluster). Default 1. */
  replicas?: number;
  bucket?: string;
  /**
   * Drop every binding at open (a purge of the bucket's stream): for the name server of a stack that has just
   * started its own NATS server, where every binding left is a dead process's. A purge also rebuilds the stream's
   * per-subject index, which two servers run on one store at once leave pointing at other keys' messages (a create
   * then fails with "wrong last sequence" while a get finds nothing, for ever).
   */
  clear?: boolean;
}

/**
 * The bindings of the name server in JetStream KV: bind is create-if-absent, unbind deletes only at the revision
 * the caller saw. Atomicity comes from the store, so any number of name-server instances can serve at once and a
 * restart keeps every binding.
 */
export class NameRegistry implements Implementation<typeof nameServerInterface> {
  private constructor(
    private readonly kv: KV,
    private readonly log: Logger,
  ) {}

  static async open(nc: NatsConnection, log: Logger, opts: NameRegistryOptions = {}): Promise<NameRegistry> {
    const kvm = new Kvm(nc);
    const bucket = opts.bucket ?? NAME_BUCKET;
    const kv = await kvm.create(bucket, { history: 1, replicas: opts.replicas ?? 1, storage: 'file' });
    if (opts.clear) {
      const { purged } = await (await jetstreamManager(nc)).streams.purge(`KV_${bucket}`);
      log.info({ bucket, purged }, 'bindings left by an earlier run dropped');
    }
    return new NameRegistry(kv, log);
  }

  async bind(name: string, aor: Aor, rebind: boolean): Promise<{ revision: number }> {
    const bound: Aor = { ...aor, name };
    const key = bindingKey(name, aor.interface_type);
    const value = JSON.stringify({ aor: bound, bound_at: new Date().toISOString() } satisfies StoredBinding);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const revision = await this.kv.create(key, value);
        this.log.info({ name, interface_type: aor.interface_type, object: aor.object_id, host: aor.host, port: aor.port, revision }, 'bound');
        return { revision };
      } catch (err) {
        if (!isRevisionConflict(err)) throw err;
      }
      const current = await this.kv.get(key);
      if (!current || current.operation !== 'PUT') continue; // removed in between: try to create again
      const stored = decodeStored(current.value);
      if (!stored) {
        // not a binding (written around the name server): nobody holds the name, so this bind takes it
        this.log.warn({ name, interface_type: aor.interface_type, revision: current.revision, bytes: current.value.length }, 'a value that is not a binding was replaced');
        try {
          const revision = await this.kv.update(key, value, current.revision);
          this.log.info({ name, interface_type: aor.interface_type, object: aor.object_id, host: aor.host, port: aor.port, revision }, 'bound');
          return { revision };
        } catch (err) {
          if (!isRevisionConflict(err)) throw err;
          continue;
        }
      }
      if (sameAor(stored.aor, bound)) return { revision: current.revision };
      if (rebind && sameObject(stored.aor, bound)) {
        try {
          const revision = await this.kv.update(key, value, current.revision);
          this.log.info({ name, interface_type: aor.interface_type, revision }, 'rebound');
          return { revision };
        } catch (err) {
          if (!isRevisionConflict(err)) throw err;
          continue;
        }
      }
      const holder = stored.aor;
      throw new AlreadyBound(`${name} (${aor.interface_type}) is already bound to ${holder.object_id} at ${holder.host}:${holder.port}`, {
        name,
        interface_type: aor.interface_type,
        revision: current.revision,
        aor: holder,
      });
    }
    throw new AlreadyBound(`${name} (${aor.interface_type}): the binding kept changing; try again`, { name, interface_type: aor.interface_type });
  }

  async resolve(name: string, interfaceType: string, interfaceVersion: string): Promise<Binding> {
    const entry = await readAgain(() => this.kv.get(bindingKey(name, interfaceType)));
    const stored = entry && entry.operation === 'PUT' ? decodeStored(entry.value) : undefined;
    if (entry && entry.operation === 'PUT' && !stored) this.log.warn({ name, interface_type: interfaceType, revision: entry.revision }, 'a value that is not a binding was skipped: the next bind replaces it');
    if (!entry || !stored) {
      throw new ResolveException(`nothing is bound as ${name} (${interfaceType})`, { name, interface_type: interfaceType });
    }
    if (!versionCompatible(stored.aor.interface_version, interfaceVersion)) {
      throw new ResolveException(
        `${name} (${interfaceType}) is bound at version ${stored.aor.interface_version}, incompatible with requested ${interfaceVersion}`,
        { name, interface_type: interfaceType, bound_version: stored.aor.interface_version, requested_version: interfaceVersion },
      );
    }
    return { name, aor: stored.aor, revision: entry.revision };
  }

  async unbind(name: string, interfaceType: string, revision: number | null): Promise<{ removed: boolean; revision: number | null }> {
    const key = bindingKey(name, interfaceType);
    const current = await this.kv.get(key);
    if (!current || current.operation !== 'PUT') return { removed: false, revision: null };
    if (revision !== null && current.revision !== revision) return { removed: false, revision: current.revision };
    try {
      await this.kv.delete(key, { previousSeq: current.revision });
      this.log.info({ name, interface_type: interfaceType, revision: current.revision }, 'unbound');
      return { removed: true, revision: current.revision };
    } catch (err) {
      if (!isRevisionConflict(err)) throw err;
      const now = await this.kv.get(key);
      return { removed: false, revision: now && now.operation === 'PUT' ? now.revision : null };
    }
  }

  async list(prefix: string): Promise<Binding[]> {
    const out: Binding[] = [];
    const keys = await this.kv.keys();
    // a Set: the key listing may yield a key twice when it changes during the listing
    const wanted = new Set<string>();
    for await (const key of keys) {
      const parsed = parseBindingKey(key);
      if (parsed && parsed.name.startsWith(prefix)) wanted.add(key);
    }
    for (const key of wanted) {
      const e = await this.kv.get(key);
      const stored = e && e.operation === 'PUT' ? decodeStored(e.value) : undefined;
      if (e && stored) out.push({ name: stored.aor.name, aor: stored.aor, revision: e.revision });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name) || a.aor.interface_type.localeCompare(b.aor.interface_type));
  }

  /**
   * Every change as it happens (bind, rebind, unbind), for clients that follow the registry. The bucket keeps one
   * revision per key, so changes to one key in quick succession may reach a watcher as only the latest.
   */
  async watch(onChange: (change: BindingChange) => void): Promise<{ stop(): void }> {
    const iter = await this.kv.watch({ include: KvWatchInclude.UpdatesOnly });
    void (async () => {
      for await (const e of iter) {
        const parsed = parseBindingKey(e.key);
        if (!parsed) continue;
        const stored = e.operation === 'PUT' ? decodeStored(e.value) : undefined;
        onChange({ name: parsed.name, interface_type: parsed.interfaceType, revision: e.revision, aor: stored?.aor ?? null });
      }
    })();
    return { stop: () => iter.stop() };
  }
}

export interface BindingChange {
  name: string;
  interface_type: string;
  revision: number;
  /** null when the binding was removed. */
  aor: Aor | null;
}
