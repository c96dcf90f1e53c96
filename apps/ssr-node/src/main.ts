/**
 * ssr-node: one SSR instance as its own process (for the chaos harness, bench:ssr, and apps that want a session
 * store beside them rather than inside).
 *
 *   tsx apps/ssr-node/src/main.ts --name n1 --cluster feeding --wait-for-ack --state-file /var/lib/esp/ssr-n1.bin
 *
 * SIGTERM: quiescence (no new operations, replication flushed, 2.16), caches saved to --state-file, leave (2.15).
 * With --state-file present at start, the caches are reloaded as suspect and repaired from the partners (2.22.1).
 * Timer firings are published on esp.raw.ssr.<cluster>.events as msgpack { type: 'fired', id, version, on }.
 */
import { existsSync } from 'node:fs';
import { stopOnSignals } from '@esp/cli-options';
import { announceReady, createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { ssrCodec, loadSnapshot, NatsSsrTransport, saveSnapshot, serveSsrNode, SsrNode, ssrSubjects, type SsrSnapshot } from '@esp/ssr';
import { parseCli } from './cli';

const cli = parseCli(process.argv.slice(2), process.env);
if (cli.kind === 'help') {
  process.stdout.write(cli.text);
  process.exit(0);
}
if (cli.kind === 'error') {
  process.stderr.write(`ssr-node: ${cli.message}\nTry --help.\n`);
  process.exit(2);
}

const log = createLogger('ssr-node', { node: cli.name, cluster: cli.cluster });
const mw = await Middleware.connect({ name: `ssr-${cli.name}`, servers: cli.nats, security: cli.security, logger: log }).catch((err: Error) => {
  log.fatal({ err: err.message }, 'cannot connect');
  process.exit(1);
});
let restore: SsrSnapshot | undefined;
if (cli.stateFile && existsSync(cli.stateFile)) {
  restore = await loadSnapshot(cli.stateFile);
  log.info({ actives: restore.actives.length, replicas: restore.replicas.length, file: cli.stateFile }, 'caches reloaded from disk (suspect until repaired)');
}
const events = ssrSubjects(cli.cluster).events;
const node = new SsrNode({
  name: cli.name,
  transport: new NatsSsrTransport(mw.bus, cli.cluster, log),
  log,
  heartbeatMs: cli.heartbeatMs,
  failAfterMs: cli.failAfterMs,
  ...(cli.suspectAfterMs !== undefined ? { suspectAfterMs: cli.suspectAfterMs } : {}),
  ...(cli.graceMs !== undefined ? { graceMs: cli.graceMs } : {}),
  ...(cli.reactivation ? { reactivation: cli.reactivation } : {}),
  waitForAck: cli.waitForAck,
  replication: cli.replication,
  ...(restore ? { restore } : {}),
  onFire: (a) => mw.bus.publish(events, ssrCodec.pack({ type: 'fired', id: a.id, version: a.version, on: cli.name })),
});
const stopServing = await serveSsrNode(node, mw.bus, cli.cluster, { log });
await node.start();
while (!node.ready) await new Promise((r) => setTimeout(r, 20));
announceReady(log, { view: node.view.members.map((m) => m.name), restored: restore !== undefined });

stopOnSignals(
  log,
  async () => {
    await node.quiesce();
    if (cli.stateFile) {
      await saveSnapshot(cli.stateFile, node.snapshot());
      log.info({ file: cli.stateFile, active: node.active.size, replica: node.replica.size }, 'caches saved');
    }
    await node.leave();
    await stopServing();
    await mw.close();
  },
  { message: 'quiescing' },
);
