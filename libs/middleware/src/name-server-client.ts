import { nameServerInterface, type Aor, type Binding, type InterfaceDef, type ProxyOf } from '@esp/interfaces';
import type { Logger } from '@esp/logging';
import { KvWatchInclude, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { createProxy } from './client-proxy';
import { parseBindingKey } from './name-key';
import type { BindingChange } from './name-registry';
import { NAME_BUCKET, nameServerSubject, nameWriteSubject } from './subjects';

const NAME_SERVER_AOR: Aor = {
  name: 'fsmw/nameserver',
  object_id: 'fsmw.nameserver',
  host: 'nameserver',
  port: 0,
  interface_type: nameServerInterface.type,
  interface_version: nameServerInterface.version,
};

/**
 * The client side of the name server: bind / resolve / unbind / list over the bus, and a watch of changes.
 *
 *   const { revision } = await mw.names.bind('esp/subsystems/processing/dispatcher', obj.aor);
 *   const b = await mw.names.resolve('esp/subsystems/processing/dispatcher', 'processing::session_factory', '5.1');
 *   await mw.names.unbind(b.name, b.aor.interface_type, b.revision);   // only if still that binding
 */
export class NameServerClient {
  private readonly proxy: ProxyOf<typeof nameServerInterface>;
  private readonly timeoutMs: number;

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: Logger,
    private readonly makeProxy: <I extends InterfaceDef>(iface: I, aor: Aor, opts?: { timeoutMs?: number }) => ProxyOf<I>,
    timeoutMs: number,
  ) {
    this.proxy = createProxy(nc, nameServerInterface, NAME_SERVER_AOR, nameServerSubject(), { timeoutMs });
    this.timeoutMs = timeoutMs;
  }

  /** Writes of a name go to its own subject (subjects.ts): the bus's permissions decide who may make them. */
  private writer(name: string): ProxyOf<typeof nameServerInterface> {
    return createProxy(this.nc, nameServerInterface, NAME_SERVER_AOR, nameWriteSubject(name), { timeoutMs: this.timeoutMs });
  }

  bind(name: string, aor: Aor, opts: { rebind?: boolean } = {}): Promise<{ revision: number }> {
    return this.writer(name).bind(name, aor, opts.rebind ?? false);
  }

  resolve(name: string, interfaceType: string, interfaceVersion: string): Promise<Binding> {
    return this.proxy.resolve(name, interfaceType, interfaceVersion);
  }

  /** Resolves a name to a typed proxy of the interface (version checked by the name server and by the proxy). */
  async resolveProxy<I extends InterfaceDef>(iface: I, name: string, opts: { timeoutMs?: number } = {}): Promise<{ proxy: ProxyOf<I>; binding: Binding }> {
    const binding = await this.resolve(name, iface.type, iface.version);
    return { proxy: this.makeProxy(iface, binding.aor, opts), binding };
  }

  /** Removes the binding if it is still at `revision` (omit it to remove whatever is bound). */
  unbind(name: string, interfaceType: string, revision: number | null = null): Promise<{ removed: boolean; revision: number | null }> {
    return this.writer(name).unbind(name, interfaceType, revision);
  }

  list(prefix = ''): Promise<Binding[]> {
    return this.proxy.list(prefix);
  }

  ping(): Promise<void> {
    return this.proxy.__ping();
  }

  /**
   * Follows binding changes straight from the store (works while name servers restart). The bucket keeps one revision
   * per key, so changes to one key in quick succession may reach a watcher as only the latest.
   */
  async watch(onChange: (change: BindingChange) => void): Promise<{ stop(): void }> {
    const kv = await new Kvm(this.nc).open(NAME_BUCKET);
    const iter = await kv.watch({ include: KvWatchInclude.UpdatesOnly });
    void (async () => {
      try {
        for await (const e of iter) {
          const parsed = parseBindingKey(e.key);
          if (!parsed) continue;
          let aor: Aor | null = null;
          if (e.operation === 'PUT') {
            try {
              aor = (JSON.parse(new TextDecoder().decode(e.value)) as { aor: Aor }).aor;
            } catch {
              continue;
            }
          }
          onChange({ name: parsed.name, interface_type: parsed.interfaceType, revision: e.revision, aor });
        }
      } catch (err) {
        this.log.warn({ err }, 'name watch ended');
      }
    })();
    return { stop: () => iter.stop() };
  }
}
