import { spawn, spawnSync } from 'node:child_process';
import { getContainerRuntimeClient } from 'testcontainers';
import { afterAll, describe, expect, it } from 'vitest';
import { NatsCluster, NatsContainerOptionError, NatsServer, natsImage, natsMode, waitFor } from '../src';
import { natsGreets } from '../src/nats-info-probe';
import { natsRequest, natsRequestJson } from './raw-nats';

// Runs with ESP_TEST_NATS=container (npm run test:containers): proof that container mode runs NATS in containers.

const WORKSPACE_ROOT = new URL('../../../', import.meta.url).pathname;

async function inspect(id: string) {
  const engine = await getContainerRuntimeClient();
  return engine.container.getById(id).inspect();
}

async function gone(id: string): Promise<boolean> {
  try {
    await inspect(id);
    return false;
  } catch (err) {
    return (err as { statusCode?: number }).statusCode === 404;
  }
}

/** A node process of this workspace running `script` (ESM, tsx), with `env` added. */
const hostOf = (ns: NatsServer) => new URL(ns.url).hostname;

function runScript(script: string, env: Record<string, string> = {}) {
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, ESP_TEST_NATS: 'container', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('container mode (ESP_TEST_NATS=container)', () => {
  const started: { cleanup(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.cleanup()));
  });

  it('NatsServer.start runs nats-server in a running container of the configured image, published on the server port', async () => {
    expect(natsMode()).toBe('container');
    const ns = await NatsServer.start();
    started.push(ns);
    expect(ns.containerId).toMatch(/^[0-9a-f]{64}$/);
    const info = await inspect(ns.containerId!);
    expect(info.State.Running).toBe(true);
    expect(info.Config.Image).toBe(natsImage());
    expect(info.HostConfig.PortBindings?.['4222/tcp']?.[0]?.HostPort).toBe(String(ns.port));
    expect(ns.url).toBe(`nats://${hostOf(ns)}:${ns.port}`);
    // the server at ns.url is the one in that container: stop the container behind the harness's back, it is gone
    expect(await natsGreets(hostOf(ns), ns.port)).toBe(true);
    const engine = await getContainerRuntimeClient();
    await engine.container.getById(ns.containerId!).kill();
    await waitFor(async () => !(await natsGreets(hostOf(ns), ns.port)), { what: 'the server to go with its container' });
  });

  it('restart (hard and soft) keeps the container, the host port and a JetStream key-value entry', async () => {
    const ns = await NatsServer.start();
    started.push(ns);
    const { port, containerId, url } = ns;
    // a KV bucket is a stream KV_<bucket> over $KV.<bucket>.> keeping the last message per key
    const created = await natsRequestJson<{ error?: unknown }>(url, '$JS.API.STREAM.CREATE.KV_proof', {
      name: 'KV_proof',
      subjects: ['$KV.proof.>'],
      max_msgs_per_subject: 1,
      storage: 'file',
      num_replicas: 1,
      allow_rollup_hdrs: true,
      deny_delete: true,
      discard: 'new',
    });
    expect(created.error).toBeUndefined();
    expect(await natsRequestJson<{ stream: string }>(url, '$KV.proof.greeting', 'survives')).toMatchObject({ stream: 'KV_proof', seq: 1 });
    const read = async () => {
      const r = await natsRequestJson<{ message?: { data: string } }>(ns.url, '$JS.API.STREAM.MSG.GET.KV_proof', { last_by_subj: '$KV.proof.greeting' });
      return Buffer.from(r.message?.data ?? '', 'base64').toString();
    };
    const pidBefore = ns.pid;
    await ns.restart({ hard: true });
    expect(ns.port).toBe(port);
    expect(ns.url).toBe(url);
    expect(ns.containerId).toBe(containerId);
    expect(ns.pid).not.toBe(pidBefore);
    expect(await read()).toBe('survives');
    await ns.restart();
    expect(ns.port).toBe(port);
    expect(await read()).toBe('survives');
  });

  it('stop and kill leave the container stopped on its port; restart brings it back; cleanup removes it', async () => {
    const ns = await NatsServer.start({ jetstream: false });
    const id = ns.containerId!;
    await ns.stop();
    expect(ns.running).toBe(false);
    expect((await inspect(id)).State.Running).toBe(false);
    expect(await natsGreets(hostOf(ns), ns.port)).toBe(false);
    await ns.restart();
    expect(await natsGreets(hostOf(ns), ns.port)).toBe(true);
    await ns.kill();
    expect((await inspect(id)).State.ExitCode).toBe(137);
    await ns.cleanup();
    expect(await gone(id)).toBe(true);
  });

  it('pause freezes the server (docker pause: no greeting), resume thaws it', async () => {
    const ns = await NatsServer.start({ jetstream: false });
    started.push(ns);
    await ns.pause();
    expect((await inspect(ns.containerId!)).State.Paused).toBe(true);
    expect(await natsGreets(hostOf(ns), ns.port, 500)).toBe(false);
    await ns.resume();
    expect(await natsGreets(hostOf(ns), ns.port)).toBe(true);
  });

  it('a client killed with SIGKILL is dropped by the server at once: a request right after gets no responders', async () => {
    // as with a local process, and unlike through Docker's userland proxy, which now and then passes the death on late
    const ns = await NatsServer.start({ jetstream: false });
    started.push(ns);
    for (let round = 0; round < 10; round++) {
      const child = spawn(process.execPath, ['-e', `
        const s = require('net').connect(${ns.port}, '${hostOf(ns)}');
        s.once('data', () => {
          s.write('CONNECT {"verbose":false}\\r\\nSUB svc 1\\r\\nPING\\r\\n');
          s.on('data', (d) => { if (String(d).includes('PONG')) { s.pause(); console.log('subscribed'); } });
        });
        setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => String(d).includes('subscribed') && resolve()));
      // a request it never reads: its death is then a reset, as when a busy service is killed
      await natsRequest(ns.url, 'svc', 'x'.repeat(1000), 200).catch(() => undefined);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      await expect(natsRequest(ns.url, 'svc', 'ping', 3000)).rejects.toThrow(/no responders/);
    }
  });

  it('config text reaches the server in the container', async () => {
    const ns = await NatsServer.start({ jetstream: false, config: 'max_payload: 16MB\n' });
    started.push(ns);
    const varz = (await (await fetch(`${ns.monitorUrl}/varz`)).json()) as { max_payload: number };
    expect(varz.max_payload).toBe(16 * 1024 * 1024);
  });

  it('options container mode cannot honour are refused with an error naming them', async () => {
    await expect(NatsServer.start({ config: 'tls { cert_file: "/etc/ssl/x.pem" }' })).rejects.toThrow(NatsContainerOptionError);
    await expect(NatsServer.start({ config: 'tls { cert_file: "/etc/ssl/x.pem" }' })).rejects.toMatchObject({ option: '"config" (tls)' });
    await expect(NatsServer.start({ args: ['--tlscert', '/etc/ssl/x.pem'] })).rejects.toMatchObject({ option: '"args" (--tlscert)' });
    await expect(NatsServer.start({ cluster: { name: 'c', routes: [] } })).rejects.toMatchObject({ name: 'NatsContainerOptionError', message: expect.stringMatching(/NatsCluster\.start/) });
  });

  it('a three-server cluster: one container each on one Docker network, routed by name; a member restarts on its port', async () => {
    const cluster = await NatsCluster.start(3);
    started.push(cluster);
    const infos = await Promise.all(cluster.servers.map((s) => inspect(s.containerId!)));
    const networks = infos.map((i) => Object.keys(i.NetworkSettings.Networks));
    expect(networks.every((n) => n.length === 1 && n[0] === networks[0]![0])).toBe(true);
    expect(networks[0]![0]).not.toBe('bridge');
    for (const s of cluster.servers) {
      const routez = (await (await fetch(`${s.monitorUrl}/routez`)).json()) as { num_routes: number };
      expect(routez.num_routes).toBe(2);
    }
    const port = cluster.servers[1]!.port;
    await cluster.restart(1, { hard: true });
    expect(cluster.servers[1]!.port).toBe(port);
    const jsz = (await (await fetch(`${cluster.servers[1]!.monitorUrl}/jsz`)).json()) as { meta_cluster?: { cluster_size?: number } };
    expect(jsz.meta_cluster?.cluster_size).toBe(3);
    expect(await natsRequest(cluster.servers[1]!.url, '$JS.API.INFO', '')).toMatch(/"type":"io.nats.jetstream.api.v1.account_info_response"/);
  }, 90_000);

  it('no engine: one line saying what is wrong and how to fix it, and no nats-server is started instead', async () => {
    const script = `
      import { NatsServer } from './libs/testing/src/index.ts';
      try {
        const ns = await NatsServer.start();
        console.log('started ' + ns.url + ' ' + ns.containerId);
        await ns.cleanup();
      } catch (err) {
        console.log(err.name + ': ' + err.message);
      }
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, ESP_TEST_NATS: 'container', DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
      encoding: 'utf8',
    });
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ContainerEngineUnavailableError: ESP_TEST_NATS=container needs a Docker engine, and none answers at DOCKER_HOST=unix:\/\/\/nonexistent\/docker.sock/);
    expect(lines[0]).toMatch(/start Docker .* or unset ESP_TEST_NATS/);
  });

  it('a container outlives no test process: SIGKILL of the process that started it removes it', async () => {
    const child = runScript(`
      import { NatsServer } from './libs/testing/src/index.ts';
      const ns = await NatsServer.start();
      console.log('container ' + ns.containerId);
      setInterval(() => {}, 1000);
    `);
    let out = '';
    const id = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`child exited with ${code}: ${out}`)));
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /container ([0-9a-f]{64})/.exec(out);
        if (m) resolve(m[1]!);
      });
    });
    expect((await inspect(id)).State.Running).toBe(true);
    child.kill('SIGKILL');
    await waitFor(() => gone(id), { what: 'the container to be removed', timeoutMs: 15_000 });
  });
});
