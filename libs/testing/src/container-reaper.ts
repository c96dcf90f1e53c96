import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ContainerRuntimeClient } from 'testcontainers';

/** Every container and network of container mode carries this label, valued with the owning test process's id. */
export const REAPER_LABEL = 'org.esp.test.reaper';

// The reaper waits for its stdin to close (this process exited, however it died), then removes every container and
// network labelled with its session. It ignores the signals a Ctrl-C or a test runner sends to the whole group.
const REAPER = `
const Docker = require(process.env.ESP_REAPER_DOCKERODE);
const docker = new Docker(JSON.parse(process.env.ESP_REAPER_DOCKER));
const filters = JSON.stringify({ label: [process.env.ESP_REAPER_LABEL] });
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => {});
let reaping = false;
async function reap() {
  if (reaping) return;
  reaping = true;
  try {
    const containers = await docker.listContainers({ all: true, filters });
    await Promise.all(containers.map((c) => docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => {})));
    const networks = await docker.listNetworks({ filters });
    await Promise.all(networks.map((n) => docker.getNetwork(n.Id).remove().catch(() => {})));
  } finally {
    process.exit(0);
  }
}
process.stdin.on('end', reap).on('close', reap).on('error', reap).resume();
`;

let session: { labels: Record<string, string>; reaper: ChildProcess } | undefined;

interface ModemOptions {
  socketPath?: unknown;
  host?: unknown;
  port?: unknown;
  protocol?: unknown;
  ca?: unknown;
  cert?: unknown;
  key?: unknown;
}

/**
 * Labels for a container or network of this process. The first call starts the reaper, which removes whatever is
 * still labelled so when this process is gone: without Ryuk (TESTCONTAINERS_RYUK_DISABLED=true), nothing else would.
 */
export function reaperLabels(engine: ContainerRuntimeClient): Record<string, string> {
  if (!session) {
    const id = `${process.pid}-${randomUUID().slice(0, 8)}`;
    const label = `${REAPER_LABEL}=${id}`;
    const m = engine.container.dockerode.modem as ModemOptions;
    const text = (v: unknown) => (Buffer.isBuffer(v) ? v.toString() : v);
    const docker = { socketPath: m.socketPath, host: m.host, port: m.port, protocol: m.protocol, ca: text(m.ca), cert: text(m.cert), key: text(m.key) };
    const dockerode = createRequire(createRequire(import.meta.url).resolve('testcontainers')).resolve('dockerode');
    const reaper = spawn(process.execPath, ['-e', REAPER], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, ESP_REAPER_DOCKERODE: dockerode, ESP_REAPER_DOCKER: JSON.stringify(docker), ESP_REAPER_LABEL: label },
    });
    // neither the process nor the pipe may keep this process alive: the pipe closing is the signal
    reaper.unref();
    (reaper.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null)?.unref?.();
    session = { labels: { [REAPER_LABEL]: id }, reaper };
  }
  return session.labels;
}
