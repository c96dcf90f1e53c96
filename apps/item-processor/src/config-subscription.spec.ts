import { XmlRpcFault, type XmlRpcInput, type XmlRpcValue } from '@esp/codecs';
import { createLogger } from '@esp/logging';
import { startXmlRpcHttpServer, XMLRPC_PATH, type XmlRpcHttpServer } from '@esp/xmlrpc-http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSubscription, pipelineConfigFrom, PROCESSOR_SERVER_ALERTS } from './config-subscription';
import type { PipelineConfig } from '@esp/pipeline';

const log = createLogger('test', {}, { level: 'silent' });

/** A config server stand-in over real XML-RPC/HTTP that records the calls it gets. */
async function fakeConfigServer(state: { pipelines?: unknown; collections: { name: string; pipeline: string }[]; gate?: Promise<void> }, port = 0) {
  const calls: string[] = [];
  const server = await startXmlRpcHttpServer({
    host: '127.0.0.1',
    port,
    log,
    dispatch: async (method: string, params: XmlRpcValue[]): Promise<XmlRpcInput> => {
      calls.push(method === 'LoadConfigFile' ? `${method}(${params.join(', ')})` : method);
      if (method === 'LoadConfigFile') {
        await state.gate;
        if (state.pipelines === undefined) throw new XmlRpcFault(1, 'no config file');
        return JSON.stringify(state.pipelines);
      }
      if (method === 'GetCollections') return state.collections;
      if (method === 'RegisterModule' || method === 'UnregisterModule') {
        const m = params[0] as { alerts: string[]; type: string; name: string };
        calls.push(`${m.type}/${m.name}/${m.alerts.length}`);
        return 1;
      }
      if (method === 'RegisterProcessorPipelines') {
        calls.push(`[${String((params[0] as XmlRpcValue[]).join(':'))}] ${String((params[1] as string[]).join(','))}`);
        return 1;
      }
      throw new XmlRpcFault(-32601, 'unknown');
    },
  });
  return { server, calls, url: `http://127.0.0.1:${server.port}${XMLRPC_PATH}` };
}

describe('ConfigSubscription (item processor side of the config server)', () => {
  const servers: XmlRpcHttpServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  function subscription(url: string, applied: PipelineConfig[], extra: Partial<ConstructorParameters<typeof ConfigSubscription>[0]> = {}) {
    return new ConfigSubscription({
      url,
      statusPort: 13410,
      host: 'ip-host',
      fallback: () => ({ pipelines: { local: [{ type: 'utf8' }] }, default_pipeline: 'local' }),
      apply: (c) => {
        applied.push(c);
        return Object.keys(c.pipelines ?? {});
      },
      log,
      retry: { initialMs: 20, maxMs: 50 },
      ...extra,
    });
  }

  it('pipelineConfigFrom - the config server\'s collections name their pipelines, over the file\'s own "collections"', () => {
    expect(pipelineConfigFrom({ pipelines: { a: [], b: [] }, collections: { x: 'a', y: 'a' } }, [{ name: 'y', pipeline: 'b' }, { name: 'z', pipeline: 'a' }])).toEqual({
      pipelines: { a: [], b: [] },
      collections: { x: 'a', y: 'b', z: 'a' },
    });
    expect(() => pipelineConfigFrom([], [])).toThrow(/JSON object/);
  });

  it('reset - LoadConfigFile and GetCollections, the configuration applied, then RegisterModule (ProcessorServer, nine alerts) and RegisterProcessorPipelines, in that order (MS-FSDPD 3.7.4.3)', async () => {
    const cfg = await fakeConfigServer({ pipelines: { pipelines: { standard: [{ type: 'utf8' }] } }, collections: [{ name: 'news', pipeline: 'standard' }] });
    servers.push(cfg.server);
    const applied: PipelineConfig[] = [];
    const sub = subscription(cfg.url, applied);
    expect(await sub.reset()).toBe(true);
    expect(applied).toEqual([{ pipelines: { standard: [{ type: 'utf8' }] }, collections: { news: 'standard' } }]);
    expect(cfg.calls.filter((c) => c !== 'GetCollections')).toEqual([
      'LoadConfigFile(DocumentProcessor, pipelines.json)',
      'RegisterModule',
      `ProcessorServer/ProcessorServer/${PROCESSOR_SERVER_ALERTS.length}`,
      'RegisterProcessorPipelines',
      '[ip-host:13410] standard',
    ]);
    expect(cfg.calls.indexOf('GetCollections')).toBeLessThan(cfg.calls.indexOf('RegisterModule'));
    expect(PROCESSOR_SERVER_ALERTS).toHaveLength(9);
    await sub.stop();
    expect(cfg.calls.slice(-2)).toEqual(['UnregisterModule', `ProcessorServer/ProcessorServer/9`]);
  });

  it('reset - no pipelines file on the config server: the local fallback, with its collections', async () => {
    const cfg = await fakeConfigServer({ collections: [{ name: 'default', pipeline: 'local' }] });
    servers.push(cfg.server);
    const applied: PipelineConfig[] = [];
    expect(await subscription(cfg.url, applied).reset()).toBe(true);
    expect(applied).toEqual([{ pipelines: { local: [{ type: 'utf8' }] }, default_pipeline: 'local', collections: { default: 'local' } }]);
  });

  it('reset - a configuration that does not build is not taken and nothing is registered', async () => {
    const cfg = await fakeConfigServer({ pipelines: { pipelines: {} }, collections: [] });
    servers.push(cfg.server);
    const sub = subscription(cfg.url, [], {
      apply: () => {
        throw new Error('unknown stage type');
      },
    });
    expect(await sub.reset()).toBe(false);
    expect(cfg.calls).not.toContain('RegisterModule');
  });

  it('resets never overlap: those asked for while one runs share one more run after it', async () => {
    let open!: () => void;
    const state: { pipelines: unknown; collections: []; gate: Promise<void> } = { pipelines: { pipelines: { p: [] } }, collections: [], gate: new Promise<void>((r) => (open = r)) };
    const cfg = await fakeConfigServer(state);
    servers.push(cfg.server);
    const applied: PipelineConfig[] = [];
    const sub = subscription(cfg.url, applied);
    const first = sub.reset();
    await new Promise((r) => setTimeout(r, 50));
    const [second, third] = [sub.reset(), sub.reset()];
    expect(second).toBe(third);
    state.pipelines = { pipelines: { q: [] } };
    open();
    expect(await Promise.all([first, second, third])).toEqual([true, true, true]);
    // the first run saw the old file or the new one; the last one certainly the new one, and only two ran
    expect(applied).toHaveLength(2);
    expect(applied[1]).toMatchObject({ pipelines: { q: [] } });
  });

  it('start - retried with backoff until the config server answers (the distributor gets us only then)', async () => {
    // a port that is free now, then the config server on it a little later
    const probe = await fakeConfigServer({ collections: [] });
    const port = probe.server.port;
    await probe.server.close();
    const applied: PipelineConfig[] = [];
    const sub = subscription(`http://127.0.0.1:${port}${XMLRPC_PATH}`, applied);
    let started = false;
    const done = sub.start().then(() => (started = true));
    await new Promise((r) => setTimeout(r, 150));
    expect(started).toBe(false);
    const cfg = await fakeConfigServer({ pipelines: { pipelines: { p: [] } }, collections: [] }, port);
    servers.push(cfg.server);
    await done;
    expect(sub.isRegistered).toBe(true);
    expect(applied).toHaveLength(1);
    await sub.stop();
  });
});
