/**
 * Attacks on the admin surfaces (XML-RPC) of the secured stack by a caller without the admin secret: the node
 * controller's StopProcess, the item processor's Status Shutdown and ResetContainer, the config server's
 * RegisterModule of a foreign host are refused (HTTP 401) and every process keeps running; a flood of 20,000
 * registrations with the secret leaves the config server's registry bounded and the server serving. After each, a
 * feed of 200 documents completes within seconds, every document with one final status and searchable.
 */
import { readFileSync } from 'node:fs';
import { XmlRpcFault } from '@esp/codecs';
import { CONFIG_SERVICE_NAME, configServiceInterface } from '@esp/interfaces';
import { xmlRpcCall } from '@esp/xmlrpc-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttackRig } from './attack-rig';

const RECOVERY_MS = 10_000;
const FLOOD = 20_000;
/** The config server's default --max-modules. */
const MAX_MODULES = 1_000;
const HTTP_401 = /HTTP 401/;

/** Resident memory of a process, in MiB (Linux). */
function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('attacks on the admin surfaces without the admin secret fail, and feeding goes on', () => {
  let rig: AttackRig;
  const recovery: Record<string, number> = {};
  const feedsAfter = async (attack: string): Promise<void> => {
    const { ms } = await rig.feedBatch(attack);
    recovery[attack] = ms;
    expect(ms, `${attack}: 200 documents searchable after ${ms} ms`).toBeLessThanOrEqual(RECOVERY_MS);
  };
  const module = (port: number, host?: string) => ({ port, type: 'ProcessorServer', version: '1', name: `fake-${port}`, alerts: ['collection'], ...(host ? { host } : {}) });

  beforeAll(async () => {
    rig = await AttackRig.start();
    await rig.feedBatch('baseline');
  }, 180_000);
  afterAll(async () => {
    console.log(`recovery after each attack (ms): ${JSON.stringify(recovery)}`);
    await rig?.stop();
  });

  it('node controller StopProcess (and RestartProcess) without the secret, or with a wrong one: HTTP 401, the item processor keeps running', async () => {
    const before = await rig.itemProcessor();
    expect(before.state).toBe('running');
    for (const method of ['StopProcess', 'RestartProcess']) {
      await expect(xmlRpcCall(rig.nodeControlUrl, method, [before.name], { secret: null }), method).rejects.toThrow(HTTP_401);
      await expect(xmlRpcCall(rig.nodeControlUrl, method, [before.name], { secret: 'x'.repeat(32) }), method).rejects.toThrow(HTTP_401);
    }
    expect(await rig.itemProcessor()).toMatchObject({ pid: before.pid, state: 'running', restarts: before.restarts });
    expect(alive(before.pid)).toBe(true);
    await feedsAfter('stop-process');
  }, 30_000);

  it('item processor Status Shutdown and ResetContainer without the secret: HTTP 401, it keeps processing', async () => {
    const { pid } = await rig.itemProcessor();
    for (const method of ['Shutdown', 'ResetContainer', 'SetLogLevel']) {
      await expect(xmlRpcCall(rig.statusUrl, method, method === 'SetLogLevel' ? ['fatal'] : [], { secret: null }), method).rejects.toThrow(HTTP_401);
    }
    // reads need the secret too: the status of a processor is no one else's business
    await expect(xmlRpcCall(rig.statusUrl, 'GetModuleStatus', [], { secret: null })).rejects.toThrow(HTTP_401);
    expect(await xmlRpcCall(rig.statusUrl, 'GetModuleStatus', [], { secret: rig.secret })).toBeDefined();
    expect(await rig.itemProcessor()).toMatchObject({ pid, state: 'running' });
    await feedsAfter('status-shutdown');
  }, 30_000);

  it('config server RegisterModule with a foreign host: HTTP 401 without the secret, fault 4 with it; nothing listed', async () => {
    await expect(xmlRpcCall(rig.configUrl, 'RegisterModule', [module(16015, '203.0.113.9')], { secret: null })).rejects.toThrow(HTTP_401);
    await expect(xmlRpcCall(rig.configUrl, 'RegisterModule', [module(16015)], { secret: null })).rejects.toThrow(HTTP_401);
    const withSecret = await xmlRpcCall(rig.configUrl, 'RegisterModule', [module(16015, '203.0.113.9')], { secret: rig.secret }).catch((e: unknown) => e);
    expect(withSecret).toBeInstanceOf(XmlRpcFault);
    expect((withSecret as XmlRpcFault).faultCode).toBe(4);
    expect(await xmlRpcCall(rig.configUrl, 'GetActiveModuleList', ['ProcessorServer'], { secret: rig.secret })).toEqual([]);
    expect(rig.procs.configServer.running).toBe(true);
    await feedsAfter('register-foreign');
  }, 30_000);

  it(`${FLOOD} RegisterModule calls (with the secret, own address): the registry stays at ${MAX_MODULES}, memory bounded, the server serves`, async () => {
    const cfg = rig.procs.configServer;
    const rssBefore = rssMiB(cfg.pid);
    let ok = 0;
    let full = 0;
    let next = 0;
    const t0 = performance.now();
    const worker = async (): Promise<void> => {
      while (next < FLOOD) {
        const port = 1 + next++;
        try {
          await xmlRpcCall(rig.configUrl, 'RegisterModule', [module(port)], { secret: rig.secret });
          ok++;
        } catch (err) {
          if (err instanceof XmlRpcFault && err.faultCode === 3) full++;
          else throw err;
        }
      }
    };
    // meanwhile a reader asks it every 200 ms: it must keep answering
    let pingMaxMs = 0;
    let flooding = true;
    const reader = (async () => {
      while (flooding) {
        const p0 = performance.now();
        expect(await xmlRpcCall(rig.configUrl, 'ping', [], { secret: null })).toBe('pong');
        pingMaxMs = Math.max(pingMaxMs, performance.now() - p0);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    await Promise.all(Array.from({ length: 16 }, worker)).finally(() => (flooding = false));
    await reader;
    const floodMs = Math.round(performance.now() - t0);
    const rssAfter = rssMiB(cfg.pid);
    console.log(`flood: ${FLOOD} calls in ${floodMs} ms; ${ok} registered, ${full} refused (full); config server RSS ${rssBefore.toFixed(0)} -> ${rssAfter.toFixed(0)} MiB; slowest ping meanwhile ${Math.round(pingMaxMs)} ms`);
    expect(pingMaxMs).toBeLessThan(2_000);
    expect(ok).toBe(MAX_MODULES);
    expect(full).toBe(FLOOD - MAX_MODULES);
    expect((await xmlRpcCall(rig.configUrl, 'GetActiveModuleList', ['ProcessorServer'], { secret: rig.secret })) as unknown[]).toHaveLength(MAX_MODULES);
    expect(rssAfter - rssBefore).toBeLessThan(100);
    // it keeps serving, over XML-RPC and on the bus
    expect(await xmlRpcCall(rig.configUrl, 'ping', [], { secret: null })).toBe('pong');
    const admin = await rig.bus.connect('admin');
    const { proxy } = await admin.names.resolveProxy(configServiceInterface, CONFIG_SERVICE_NAME);
    expect(await proxy.get_active_module_list('ProcessorServer')).toHaveLength(MAX_MODULES);
    expect(cfg.running).toBe(true);
    await feedsAfter('register-flood');
  }, 90_000);

  it('every process still runs, the item processor never restarted', async () => {
    for (const [name, p] of Object.entries(rig.procs)) expect(p.running, name).toBe(true);
    expect(await rig.itemProcessor()).toMatchObject({ state: 'running', restarts: 0 });
  });
});
