/**
 * The SSR chaos run: 5 ssr-node processes on a real nats-server, N artifacts (sessions, a tenth of them with a
 * timer child) under random updates and reads, and the failures that session replication must survive:
 *
 *   A. kill -9 one instance           → zero artifacts lost, all reachable again; repair time measured
 *   B. kill -9 another, non-adjacent  → zero lost
 *   C. kill -9 a buddy pair at once   → exactly the artifacts whose every copy was on the pair are lost (predicted
 *                                       from a census before the kill, compared with what is found after)
 *   D. rolling upgrade of all five    → SIGTERM (quiesce, save), artifacts deleted while the instance is down,
 *                                       restart with reload and repair (2.22.1) → zero lost, no zombie
 *   timers: every timer fires exactly once across the failure of its owner (A)
 *
 * Each killed instance is restarted (empty caches, 2.8 "recovered with cleared caches") before the next phase.
 * The harness keeps its own model: the version of every acknowledged update, what was deleted.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Middleware } from '@esp/middleware';
import { ssrCodec, ssrSubjects, SsrClient, type CensusEntry } from '@esp/ssr';
import { ChildService, NatsServer } from '@esp/testing';

export interface ChaosOptions {
  artifacts: number;
  /** Concurrent operations of the background workload. */
  concurrency?: number;
  /** Workload time after each failure before the checks. */
  loadAfterKillMs?: number;
  /** Where the list of artifacts lost in phase C is written. */
  reportDir?: string;
  log?: (line: string) => void;
  /** Which phases to run (default 'ABCD'). */
  phases?: string;
}

export interface PhaseReport {
  phase: string;
  lost: number;
  expectedLost: number;
  sameSet: boolean;
  repairMs: number;
  zombies: number;
  /** Timer children that survived the failure while their parent session did not (removed later, 2.14.1). */
  orphans?: number;
}

export interface ChaosReport {
  phases: PhaseReport[];
  timers: { total: number; once: number; twice: number; never: number };
  workload: { ops: number; failures: number; anomalies: number; retries: number };
  lostFile: string | undefined;
  pass: boolean;
}

interface Rec {
  version: number;
  deleted: boolean;
  lost: boolean;
  homeKey?: string;
  timer: boolean;
}

const CLUSTER = 'chaos';
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const log = opts.log ?? ((l: string) => process.stdout.write(`${l}\n`));
  const N = opts.artifacts;
  const T = Math.max(1, Math.floor(N / 10));
  const C = opts.concurrency ?? 32;
  const loadAfterKill = opts.loadAfterKillMs ?? 3000;
  const names = ['n1', 'n2', 'n3', 'n4', 'n5'];
  const ns = await NatsServer.start({ jetstream: false });
  const dir = mkdtempSync(join(tmpdir(), 'ssr-chaos-'));
  const stateFile = (n: string): string => join(dir, `${n}.bin`);
  const svcs = new Map<string, ChildService>();
  const mw = await Middleware.connect({ name: 'ssr-chaos', servers: ns.url });
  const client = await SsrClient.connect(mw.bus, CLUSTER, { failAfterMs: 1000, suspectAfterMs: 300, timeoutMs: 3000, deadlineMs: 30_000 });
  const fired = new Map<string, number>();
  const stopEvents = await mw.bus.subscribe(ssrSubjects(CLUSTER).events, (m) => {
    let e: { type?: string; id?: string };
    try {
      e = ssrCodec.unpack(m.data) as { type?: string; id?: string };
    } catch {
      return;
    }
    if (e.type === 'fired' && typeof e.id === 'string') fired.set(e.id, (fired.get(e.id) ?? 0) + 1);
  });
  const start = (n: string): Promise<ChildService> =>
    ChildService.start({
      entry: 'apps/ssr-node/src/main.ts',
      args: ['--nats', ns.url, '--cluster', CLUSTER, '--name', n, '--heartbeat-ms', '100', '--fail-after-ms', '1000', '--grace-ms', '1500', '--reactivate-low-ms', '500', '--reactivate-high-ms', '2000', '--wait-for-ack', '--state-file', stateFile(n)],
      env: { LOG_LEVEL: process.env['SSR_CHAOS_CHILD_LOG_LEVEL'] ?? 'info' },
      startTimeoutMs: 60_000,
    });
  const live = (): string[] => names.filter((n) => svcs.get(n)?.running);
  const model = new Map<string, Rec>();
  const report: ChaosReport = { phases: [], timers: { total: T, once: 0, twice: 0, never: 0 }, workload: { ops: 0, failures: 0, anomalies: 0, retries: 0 }, lostFile: undefined, pass: false };
  let excluded = new Set<string>();

  const waitView = async (n: number, timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const stats = await Promise.all(live().map((x) => client.stats(x).catch(() => undefined)));
      if (client.view.members.length === n && stats.every((s) => s && s['members'] === n && s['ready'] && s['expatReady'])) return;
      if (Date.now() > deadline) throw new Error(`view of ${n} instances not reached: ${JSON.stringify(stats)}`);
      await sleep(100);
    }
  };

  const census = async (): Promise<Map<string, { node: string; c: CensusEntry }[]>> => {
    const all = new Map<string, { node: string; c: CensusEntry }[]>();
    for (const n of live()) {
      for (const c of await client.census(n)) {
        let l = all.get(c.id);
        if (!l) all.set(c.id, (l = []));
        l.push({ node: n, c });
      }
    }
    return all;
  };

  /** Every live artifact: exactly one active copy and a replica elsewhere, nothing suspect, no repair under way. */
  const waitHealthy = async (t0: number, timeoutMs = 90_000): Promise<number> => {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      const stats = await Promise.all(live().map((x) => client.stats(x).catch(() => undefined)));
      if (stats.every((s) => s && s['repairing'] === 0)) {
        const cen = await census();
        let bad = 0;
        let example = '';
        for (const [id, r] of model) {
          if (r.deleted || r.lost || excluded.has(id)) continue;
          const copies = cen.get(id) ?? [];
          const act = copies.filter((x) => x.c.where === 'active');
          const ok = act.length === 1 && copies.some((x) => x.c.where === 'replica' && x.node !== act[0]?.node) && copies.every((x) => !x.c.suspect);
          if (!ok) {
            bad++;
            example ||= `${id}: ${copies.map((x) => `${x.node}/${x.c.where}${x.c.suspect ? '/suspect' : ''}/v${x.c.version}/${x.c.owner}`).join(' ') || 'no copy'}`;
          }
        }
        if (bad === 0) return Date.now() - t0;
        last = `${bad} artifacts not yet at two copies, e.g. ${example}`;
      } else last = 'repair under way';
      if (Date.now() > deadline) {
        const id = last.split('e.g. ')[1]?.split(':')[0];
        if (id && process.env['SSR_CHAOS_DUMP']) {
          const lines = [...svcs.entries()].flatMap(([n, s]) => s.logs.filter((l) => JSON.stringify(l).includes(`"${id}`) || JSON.stringify(l).includes(`${id}@`)).map((l) => `${n} ${JSON.stringify(l)}`));
          writeFileSync(process.env['SSR_CHAOS_DUMP'], lines.join('\n'));
        }
        throw new Error(`not repaired within ${timeoutMs} ms: ${last}; instances: ${JSON.stringify(stats)}`);
      }
      await sleep(250);
    }
  };

  // ------------------------------------------------------------------ workload
  let paused = true;
  let stopping = false;
  let inFlight = 0;
  const sessionIds: string[] = [];
  const worker = async (): Promise<void> => {
    while (!stopping) {
      if (paused) {
        await sleep(20);
        continue;
      }
      const id = sessionIds[Math.floor(Math.random() * sessionIds.length)] as string;
      const r = model.get(id) as Rec;
      if (r.deleted || r.lost || excluded.has(id)) continue;
      inFlight++;
      report.workload.ops++;
      try {
        if (Math.random() < 0.5) {
          const acked = r.version;
          const a = await client.get(id);
          if (!a && !excluded.has(id) && !r.deleted) {
            report.workload.anomalies++;
            log(`  anomaly: ${id} not found during the workload`);
          } else if (a && a.version < acked) {
            report.workload.anomalies++;
            log(`  anomaly: ${id} read version ${a.version} < acknowledged ${acked}`);
          }
        } else {
          const { version } = await client.put(id, enc(`${id}@${Date.now()}`));
          if (version > r.version) r.version = version;
        }
      } catch {
        report.workload.failures++;
      } finally {
        inFlight--;
      }
    }
  };
  const pause = async (): Promise<void> => {
    paused = true;
    while (inFlight > 0) await sleep(10);
  };

  // ------------------------------------------------------------------ checks
  const verify = async (): Promise<{ lost: string[]; zombies: string[] }> => {
    const lost: string[] = [];
    const zombies: string[] = [];
    const ids = [...model.keys()];
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < ids.length) {
          const id = ids[next++] as string;
          const r = model.get(id) as Rec;
          if (r.lost) continue;
          const a = await client.get(id, r.homeKey);
          if (r.deleted) {
            if (a) zombies.push(id);
          } else if (!a || a.version < r.version) {
            lost.push(id);
            if (lost.length <= 5) log(`  ${id}: ${a ? `found version ${a.version} (owner ${a.owner}), acknowledged ${r.version}` : `not found, acknowledged version ${r.version}`}`);
          }
        }
      }),
    );
    return { lost, zombies };
  };

  const killPhase = async (phase: string, victims: string[]): Promise<PhaseReport> => {
    await pause();
    const cen = await census();
    // 2.2.2: an artifact is lost in a double failure only if every copy of it was on the failed instances
    const predicted = [...model.entries()].filter(([id, r]) => !r.deleted && !r.lost && (cen.get(id) ?? []).every((x) => victims.includes(x.node))).map(([id]) => id);
    // 2.14.1: no child outlives its parent. A timer child with a copy elsewhere whose parent session is lost is an
    // orphan: SSR removes it when it is next activated (a replica reactivation, a read), which may be before the
    // check below or in any later phase. Its disappearance is expected, its survival too; it leaves the model.
    const lostParents = new Set(predicted);
    const orphans = [...model.entries()].filter(([id, r]) => r.timer && !r.deleted && !r.lost && !lostParents.has(id) && r.homeKey !== undefined && lostParents.has(r.homeKey)).map(([id]) => id);
    excluded = new Set([...predicted, ...orphans]);
    log(`${phase}: kill -9 ${victims.join(' + ')} (census: ${predicted.length} artifacts have every copy there${orphans.length ? `; ${orphans.length} timer children elsewhere lose their parent: ${orphans.slice(0, 5).join(' ')}` : ''})`);
    paused = false;
    const t0 = Date.now();
    await Promise.all(victims.map((v) => (svcs.get(v) as ChildService).kill()));
    await sleep(loadAfterKill);
    await pause();
    await waitView(names.length - victims.length);
    const repairMs = await waitHealthy(t0);
    const { lost: gone, zombies } = await verify();
    const orphanSet = new Set(orphans);
    const lost = gone.filter((id) => !orphanSet.has(id));
    const same = lost.length === predicted.length && lost.every((id) => lostParents.has(id));
    for (const id of [...lost, ...orphans]) (model.get(id) as Rec).lost = true;
    excluded = new Set();
    const p: PhaseReport = { phase, lost: lost.length, expectedLost: predicted.length, sameSet: same, repairMs, zombies: zombies.length, orphans: orphans.length };
    log(`${phase}: lost=${lost.length} expected=${predicted.length} same_set=${same} zombies=${zombies.length} orphaned_children=${orphans.length} (removed by the check: ${gone.length - lost.length}) healthy_at_ms=${repairMs} (first check after ${loadAfterKill} ms of workload) reachable=${[...model.values()].filter((r) => !r.deleted && !r.lost).length}`);
    if (lost.length && opts.reportDir !== undefined) {
      report.lostFile = join(opts.reportDir, 'ssr-chaos-lost.txt');
      writeFileSync(report.lostFile, `${lost.sort().join('\n')}\n`);
      log(`${phase}: the ${lost.length} lost artifact ids are in ${report.lostFile}`);
    } else if (lost.length) log(`${phase}: lost ids (first 20): ${lost.slice(0, 20).join(' ')}`);
    // recovery with empty caches (2.8), then migration back and purge (2.17)
    for (const v of victims) {
      if (existsSync(stateFile(v))) rmSync(stateFile(v));
      svcs.set(v, await start(v));
    }
    await waitView(names.length);
    await waitHealthy(Date.now());
    return p;
  };

  const workers: Promise<void>[] = [];
  try {
    // ---------------------------------------------------------------- setup
    const started = await Promise.all(names.map((n) => start(n)));
    names.forEach((n, i) => svcs.set(n, started[i] as ChildService));
    await waitView(5);
    log(`ssr-chaos: 5 instances (ack mode), ${N} artifacts of which ${T} timers, nats ${ns.url}`);
    for (let i = 0; i < N - T; i++) sessionIds.push(`s${i}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < sessionIds.length) {
          const id = sessionIds[next++] as string;
          const { version } = await client.put(id, enc(`${id}@0`));
          model.set(id, { version, deleted: false, lost: false, timer: false });
        }
      }),
    );
    for (let i = 0; i < C; i++) workers.push(worker());
    await waitHealthy(Date.now());

    // timers: children of the first T sessions, due 1.5 - 5 s from now; phase A kills an owner before most are due
    const due0 = Date.now();
    next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < T) {
          const i = next++;
          const id = `s${i}/timer`;
          const { version } = await client.put(id, enc('timer'), { parentId: `s${i}`, nextFire: due0 + 1500 + Math.floor(Math.random() * 3500) });
          model.set(id, { version, deleted: false, lost: false, timer: true, homeKey: `s${i}` });
        }
      }),
    );

    // ---------------------------------------------------------------- A, B, C
    const want = opts.phases ?? 'ABCD';
    if (want.includes('A')) report.phases.push(await killPhase('A single failure', ['n2']));
    const timersDeadline = Date.now() + 30_000;
    while ([...model.entries()].some(([id, r]) => r.timer && !fired.has(id)) && Date.now() < timersDeadline) await sleep(200);
    paused = false;
    await sleep(1000);
    if (want.includes('B')) report.phases.push(await killPhase('B non-adjacent failure', ['n4']));
    paused = false;
    await sleep(1000);
    if (want.includes('C')) report.phases.push(await killPhase('C buddy pair', ['n1', 'n2']));

    // ---------------------------------------------------------------- D rolling upgrade
    const deleted: string[] = [];
    let upgradeMs = 0;
    for (const n of want.includes('D') ? names : []) {
      paused = false;
      await sleep(500);
      await pause();
      const cen = await census();
      // artifacts whose replica is on n: deleted while n (their buddy) is down
      const onN = [...cen.entries()].filter(([id, l]) => !model.get(id)?.timer && !model.get(id)?.deleted && !model.get(id)?.lost && l.some((x) => x.node === n && x.c.where === 'replica') && !l.some((x) => x.node === n && x.c.where === 'active')).map(([id]) => id);
      const victims = onN.slice(0, Math.max(2, Math.floor(N / 500)));
      const t0 = Date.now();
      const code = await (svcs.get(n) as ChildService).stop(30_000);
      if (code !== 0) throw new Error(`${n} exited with ${code} on SIGTERM`);
      await waitView(4);
      for (const id of victims) {
        // a session goes with its timer (an app removes both; SSR would remove the orphan itself, 2.14.1)
        const child = `${id}/timer`;
        if (model.has(child) && !(model.get(child) as Rec).deleted) {
          if (await client.remove(child, id)) (model.get(child) as Rec).deleted = true;
          deleted.push(child);
        }
        if (await client.remove(id)) (model.get(id) as Rec).deleted = true;
        else log(`  ${id}: remove found nothing`);
        deleted.push(id);
      }
      paused = false;
      const svc = svcs.get(n) as ChildService;
      await svc.restart();
      await pause();
      await waitView(5);
      upgradeMs = Math.max(upgradeMs, await waitHealthy(t0));
      log(`D rolling upgrade: ${n} saved, restarted, reloaded, repaired in ${Date.now() - t0} ms (${victims.length} of its replicas deleted while it was down)`);
    }
    const { lost, zombies } = await verify();
    if (want.includes('D')) {
      // the instances' own account of the conditions that can cost an acknowledged artifact in a rolling upgrade
      const count = (msg: string, field?: string): number =>
        [...svcs.values()].flatMap((s) => s.logs).filter((l) => l['msg'] === msg).reduce((n, l) => n + (field ? Number(l[field] ?? 0) : 1), 0);
      log(
        `D diagnostics: quiesce_resent=${count('quiesce: the buddy lacked replicas of active copies; sent again', 'artifacts')} reload_dropped=${count('reloaded active copies the buddy holds no replica of were dropped', 'dropped')} ` +
          `reload_settled=${count('reloaded active copies the buddy holds no replica of were dropped', 'kept')} unacked_resends=${count('replication not acknowledged in time; sent again')} repair_unacked=${count('repair batch not acknowledged')} expat_older=${count('load found an older version than the expat list')}`,
      );
    }
    const cen = await census();
    for (const id of lost.slice(0, 3)) {
      log(`  lost ${id}: copies now ${(cen.get(id) ?? []).map((x) => `${x.node}/${x.c.where}/v${x.c.version}/${x.c.owner}${x.c.suspect ? '/suspect' : ''}`).join(' ') || 'none'}`);
      for (const [n, s] of svcs) for (const l of s.logs) if (JSON.stringify(l).includes(`"${id}"`) || JSON.stringify(l).includes(`"${id}@`)) log(`    ${n} ${JSON.stringify(l)}`);
    }
    const zombieCopies = deleted.filter((id) => cen.has(id));
    for (const id of zombieCopies.slice(0, 5)) log(`  zombie ${id}: ${(cen.get(id) ?? []).map((x) => `${x.node}/${x.c.where}/v${x.c.version}/${x.c.owner}${x.c.suspect ? '/suspect' : ''}`).join(' ')}`);
    report.phases.push({ phase: want.includes('D') ? 'D rolling upgrade' : 'final check', lost: lost.length, expectedLost: 0, sameSet: lost.length === 0, repairMs: upgradeMs, zombies: zombies.length + zombieCopies.length });
    log(`D rolling upgrade: lost=${lost.length} zombies=${zombies.length} (copies of deleted artifacts left: ${zombieCopies.length}) deleted_while_buddy_down=${deleted.length}`);

    // ---------------------------------------------------------------- timers
    for (const [id, r] of model) {
      if (!r.timer) continue;
      const f = fired.get(id) ?? 0;
      if (f === 1) report.timers.once++;
      else if (f === 0) report.timers.never++;
      else report.timers.twice++;
    }
    log(`timers: ${report.timers.total} total, fired once ${report.timers.once}, twice or more ${report.timers.twice}, never ${report.timers.never}`);
  } finally {
    stopping = true;
    await Promise.all(workers);
    report.workload.retries = client.retries;
    await Promise.all([...svcs.values()].map((s) => s.kill()));
    await stopEvents();
    await client.close();
    await mw.close();
    await ns.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
  log(`workload: ${report.workload.ops} operations, ${report.workload.failures} failed after retries, ${report.workload.anomalies} anomalies, ${report.workload.retries} retries`);
  const by = (letter: string): PhaseReport | undefined => report.phases.find((p) => p.phase.startsWith(letter));
  const want = opts.phases ?? 'ABCD';
  const [a, b, c, d] = ['A', 'B', 'C', 'D'].map(by);
  report.pass =
    (!want.includes('A') || (!!a && a.lost === 0 && a.expectedLost === 0)) &&
    (!want.includes('B') || (!!b && b.lost === 0 && b.expectedLost === 0)) &&
    (!want.includes('C') || (!!c && c.sameSet)) &&
    (!want.includes('D') || (!!d && d.lost === 0)) &&
    report.phases.every((p) => p.zombies === 0) &&
    report.timers.once === report.timers.total &&
    report.workload.anomalies === 0;
  return report;
}
