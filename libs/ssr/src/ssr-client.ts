import type { RawBus } from '@esp/middleware';
import { retry } from '@esp/timers';
import { hashKey, type Artifact } from './artifact';
import { ConsistentHashRouter } from './consistent-hash';
import { SsrError, SsrNotHome, SsrUnavailable, ssrErrorFromCode } from './errors';
import { isSsrMessage } from './messages';
import { Membership, type View } from './membership';
import { ssrCodec } from './node-service';
import type { CensusEntry } from './ssr-node';
import { ssrSubjects, type SsrSubjects } from './subjects';

export interface SsrClientOptions {
  /** Same timings as the instances, so the client's view changes when theirs do. */
  suspectAfterMs?: number;
  failAfterMs?: number;
  /** Per attempt. */
  timeoutMs?: number;
  /** Retryable failures (busy, unavailable, not home, quiescing, no answer) are retried until this deadline. */
  deadlineMs?: number;
}

/**
 * Data-centric routing from outside (the load balancer of 1.3): watches the heartbeats, keeps the same view as the
 * instances, sends each operation to the home of its key and retries what is retryable (2.8 "503 with
 * retry-after"). A final SsrError says what happened; every call ends in a result or one error.
 */
export class SsrClient {
  private readonly subjects: SsrSubjects;
  private readonly membership: Membership;
  private router = new ConsistentHashRouter([]);
  private stopWatch: (() => Promise<void>) | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private readonly o: Required<SsrClientOptions>;
  retries = 0;

  private constructor(
    private readonly bus: RawBus,
    cluster: string,
    opts: SsrClientOptions,
  ) {
    this.subjects = ssrSubjects(cluster);
    this.o = { suspectAfterMs: opts.suspectAfterMs ?? 600, failAfterMs: opts.failAfterMs ?? 1500, timeoutMs: opts.timeoutMs ?? 3000, deadlineMs: opts.deadlineMs ?? 20_000 };
    this.membership = new Membership(undefined, { suspectAfterMs: this.o.suspectAfterMs, failAfterMs: this.o.failAfterMs }, Date.now());
  }

  static async connect(bus: RawBus, cluster: string, opts: SsrClientOptions = {}): Promise<SsrClient> {
    const c = new SsrClient(bus, cluster, opts);
    c.stopWatch = await bus.subscribe(c.subjects.all, (m) => {
      let v: unknown;
      try {
        v = ssrCodec.unpack(m.data);
      } catch {
        return;
      }
      if (!Array.isArray(v)) return;
      for (const x of v) if (isSsrMessage(x) && x.t === 'hb') c.apply(c.membership.heard(x.from, x.state, Date.now()));
    });
    c.ticker = setInterval(() => c.apply(c.membership.tick(Date.now())), 100);
    return c;
  }

  get view(): View {
    return this.membership.view;
  }

  homeOf(key: string): string | undefined {
    return this.router.home(hashKey(key));
  }

  async put(id: string, body: Uint8Array, opts: { homeKey?: string; parentId?: string; nextFire?: number | null } = {}): Promise<{ version: number }> {
    return (await this.routed(opts.homeKey ?? opts.parentId ?? id, ['put', id, body, opts])) as { version: number };
  }
  async get(id: string, homeKey?: string): Promise<Artifact | undefined> {
    return ((await this.routed(homeKey ?? id, ['get', id, homeKey])) as Artifact | null) ?? undefined;
  }
  async remove(id: string, homeKey?: string): Promise<boolean> {
    return (await this.routed(homeKey ?? id, ['remove', id, homeKey])) as boolean;
  }
  async census(name: string): Promise<CensusEntry[]> {
    const rows = (await this.call(name, ['census'])) as [string, number, number, number, string][];
    return rows.map(([id, version, active, suspect, owner]) => ({ id, version, where: active ? 'active' : 'replica', suspect: suspect === 1, owner }));
  }
  async stats(name: string): Promise<Record<string, number | string | boolean>> {
    return (await this.call(name, ['stats'])) as Record<string, number | string | boolean>;
  }

  async close(): Promise<void> {
    clearInterval(this.ticker);
    await this.stopWatch?.();
  }

  /** One attempt on a named instance. */
  async call(name: string, req: unknown[]): Promise<unknown> {
    let reply: Uint8Array;
    try {
      reply = await this.bus.request(this.subjects.op(name), ssrCodec.pack(req), this.o.timeoutMs);
    } catch (err) {
      throw new SsrUnavailable(`${name} did not answer: ${String(err)}`, { cause: err });
    }
    const r = ssrCodec.unpack(reply) as unknown[];
    if (r[0] === 0) return r[1];
    throw ssrErrorFromCode(String(r[1]), String(r[2]), typeof r[3] === 'string' ? r[3] : undefined);
  }

  private async routed(key: string, req: unknown[]): Promise<unknown> {
    let home: string | undefined;
    let hint: string | undefined;
    return retry(
      async () => {
        home = hint ?? this.homeOf(key);
        hint = undefined;
        if (!home) throw new SsrUnavailable('no instance in view');
        return this.call(home, req);
      },
      {
        deadlineMs: this.o.deadlineMs,
        initialMs: 25,
        maxMs: 400,
        retryable: (err) => err instanceof SsrError && err.retryable,
        onRetry: (err, attempt) => {
          // the instance's view may be ahead of ours (or behind): try its idea of the home once
          if (err instanceof SsrNotHome && err.home && err.home !== home && attempt % 2 === 0) hint = err.home;
          this.retries++;
        },
      },
    );
  }

  private apply(events: ReturnType<Membership['tick']>): void {
    for (const e of events) if (e.type === 'view') this.router = new ConsistentHashRouter(e.view.members.map((m) => m.name));
  }
}
