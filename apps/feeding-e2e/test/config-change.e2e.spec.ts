import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { XmlRpcValue } from '@esp/codecs';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { INDEX_SEARCH_NAME, searchInterface, UnknownCollection } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { xmlRpcCall } from '@esp/xmlrpc-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const log = createLogger('e2e', {}, { level: 'warn' });
const doc = (id: string, title: string): FeedDocument => ({ id, attributes: { title, body: `the text of ${id}`, content_type: 'text/plain' } });

/** The configuration before the change: one collection, one pipeline whose "slow" stage holds documents "slow-*". */
const PIPELINES_V1 = {
  pipelines: { standard: [{ type: 'utf8' }, { type: 'fail', name: 'slow', delay_ms: 100, delay_id_pattern: '^slow-' }, { type: 'normalize' }] },
  default_pipeline: 'standard',
};
/** After: "standard" drops titles with "spam", and a new pipeline "news" for a new collection sets an attribute. */
const PIPELINES_V2 = {
  pipelines: {
    standard: [
      { type: 'utf8' },
      { type: 'fail', name: 'slow', delay_ms: 100, delay_id_pattern: '^slow-' },
      { type: 'drop', name: 'no-spam', rules: [{ attribute: 'title', pattern: 'spam', flags: 'i' }] },
      { type: 'normalize' },
    ],
    news: [{ type: 'utf8' }, { type: 'map', set: { source: 'newswire' } }, { type: 'normalize' }],
  },
  default_pipeline: 'standard',
};

describe('a configuration change reaches running processes without a restart', () => {
  let ns: NatsServer;
  let dir: string;
  let cfgDir: string;
  let client: Middleware;
  let cfgUrl: string;
  let cfg: ChildService;
  const procs: ChildService[] = [];
  const processors: ChildService[] = [];
  const statusUrls: string[] = [];

  const svc = async (entry: string, args: string[]) => {
    const s = await ChildService.start({ entry, args: ['--nats', ns.url, ...args], startTimeoutMs: 60_000 });
    procs.push(s);
    return s;
  };
  const writeConfig = (collections: { name: string; pipeline: string }[], pipelines: unknown) => {
    writeFileSync(join(cfgDir, 'collections.json'), JSON.stringify({ collections }));
    writeFileSync(join(cfgDir, 'DocumentProcessor', 'pipelines.json'), JSON.stringify(pipelines));
  };
  const status = (i: number, method: string, params: XmlRpcValue[] = []) => xmlRpcCall(statusUrls[i]!, method, params as never[]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'esp-config-change-'));
    cfgDir = join(dir, 'config');
    mkdirSync(join(cfgDir, 'DocumentProcessor'), { recursive: true });
    writeConfig([{ name: 'default', pipeline: 'standard' }], PIPELINES_V1);
    ns = await NatsServer.start();
    await svc('apps/name-server/src/main.ts', []);
    cfg = await svc('apps/config-server/src/main.ts', ['--port', '0', '--listen', '127.0.0.1', '--config-dir', cfgDir]);
    cfgUrl = String(cfg.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    await Promise.all([
      svc('apps/indexer/src/main.ts', ['--data', join(dir, 'index'), '--collections', 'default', '--config-service']),
      svc('apps/content-distributor/src/main.ts', ['--config-service']),
    ]);
    for (const name of ['ip-a', 'ip-b']) {
      const p = await svc('apps/item-processor/src/main.ts', ['--name', name, '--host', '127.0.0.1', '--status-listen', '127.0.0.1', '--config-server', cfgUrl]);
      processors.push(p);
      statusUrls.push(String(p.logs.find((l) => l['msg'] === 'ready')?.['status_url']));
    }
    client = await Middleware.connect({ name: 'e2e-client', servers: ns.url, logger: log });
  }, 120_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await Promise.all([...procs].reverse().map((p) => p.kill()));
    await ns?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('item processors register as ProcessorServer with the nine alerts (ResetContainer at start, MS-FSDPD 3.7.3 / 3.7.4.3)', async () => {
    const modules = (await xmlRpcCall(cfgUrl, 'GetActiveModuleList', ['ProcessorServer'])) as { port: number; name: string; version: string; alerts: string[] }[];
    expect(modules.map((m) => m.port).sort()).toEqual(statusUrls.map((u) => Number(new URL(u).port)).sort());
    for (const m of modules) {
      expect(m).toMatchObject({ name: 'ProcessorServer', version: '1.0' });
      expect(m.alerts).toEqual(['pipelines', 'stages', 'collection', 'pipeline_added', 'pipeline_modified', 'pipeline_removed', 'PipelineLogger', 'configfile', 'ProcessorServer']);
    }
    await waitFor(() => cfg.logs.filter((l) => l['msg'] === 'processor pipelines registered').length >= 2, { what: 'RegisterProcessorPipelines from both', timeoutMs: 5_000 });
    expect(cfg.logs.filter((l) => l['msg'] === 'processor pipelines registered').map((l) => l['pipelines'])).toEqual([['standard'], ['standard']]);
  });

  it('a new collection and a changed pipeline: the batch in flight finishes on the old pipeline, then the same processes (same pids) run the new one and the new collection is accepted', async () => {
    const pids = processors.map((p) => p.pid);
    await expect(FeedingClient.open({ mw: client, collection: 'news', log })).rejects.toBeInstanceOf(UnknownCollection);

    // a batch of 40 slow documents (100 ms each, 4 s) whose titles say "spam": in flight while the configuration changes
    const before = await FeedingClient.open({ mw: client, collection: 'default', log, batchSize: 100 });
    for (let i = 0; i < 40; i++) await before.feed(doc(`slow-${i}`, `spam before ${i}`));
    await before.flush();
    await waitFor(async () => (await Promise.all([0, 1].map((i) => status(i, 'GetModuleStatus')))).some((s) => (s as { CurrentWork: number }).CurrentWork === 1), {
      what: 'a processor busy with the slow batch',
      timeoutMs: 10_000,
    });

    writeConfig(
      [
        { name: 'default', pipeline: 'standard' },
        { name: 'news', pipeline: 'news' },
      ],
      PIPELINES_V2,
    );
    // ReloadConfig answers once every ConfigurationChanged was answered, i.e. once both processors have reset
    const alertsBefore = cfg.logs.filter((l) => l['msg'] === 'ConfigurationChanged sent').length;
    expect(await xmlRpcCall(cfgUrl, 'ReloadConfig', [])).toEqual({ changed: true, collections: ['default', 'news'], pipelines: ['standard', 'news'] });
    // the slow batch was still in flight when both processors had reset
    expect((await Promise.all([0, 1].map((i) => status(i, 'GetModuleStatus')))).some((st) => (st as { CurrentWork: number }).CurrentWork === 1)).toBe(true);
    // (its log lines come through a pipe, the reply through HTTP: wait for them)
    const sent = await waitFor(() => {
      const l = cfg.logs.filter((x) => x['msg'] === 'ConfigurationChanged sent').slice(alertsBefore);
      return l.length >= 3 ? l : undefined;
    }, { what: 'three alerts logged', timeoutMs: 5_000 });
    expect(sent.map((l) => [l['alert'], l['sent'], l['failed']])).toEqual([
      ['collection', 2, 0],
      ['pipeline_added', 2, 0],
      ['pipeline_modified', 2, 0],
    ]);

    // the Status tables after ResetContainer (FlushState, 3.7.4.4): logs empty, statistics rows of the new stages and pipelines at zero
    for (const i of [0, 1]) {
      const stats = (await status(i, 'GetStatistics')) as { Elapsed: number; Statistics: [Record<string, { OK: number }>, Record<string, { OK: number }>] };
      expect(Object.keys(stats.Statistics[0]).sort()).toEqual(['map', 'no-spam', 'normalize', 'slow', 'utf8']);
      expect(Object.keys(stats.Statistics[1]).sort()).toEqual(['news', 'standard']);
      expect(stats.Statistics[0]['no-spam']).toMatchObject({ OK: 0 });
      expect(stats.Elapsed).toBeLessThan(30);
    }
    await waitFor(() => cfg.logs.filter((l) => l['msg'] === 'processor pipelines registered' && (l['pipelines'] as string[]).includes('news')).length >= 2, {
      what: 'RegisterProcessorPipelines with the new pipeline from both',
      timeoutMs: 5_000,
    });

    // the batch that was in flight: every document completed (the old pipeline had no drop rule), none lost
    const first = await before.drain(60_000);
    expect(first.unfinished).toEqual([]);
    expect(first.stats).toMatchObject({ completed: 40, failed: 0, lost: 0, duplicateFinals: 0 });
    await before.close();

    // now the new pipeline: spam is dropped by the new stage, the rest completes
    const after = await FeedingClient.open({ mw: client, collection: 'default', log });
    for (let i = 0; i < 20; i++) await after.feed(doc(`after-${i}`, i % 2 === 0 ? `spam offer ${i}` : `news item ${i}`));
    const second = await after.drain(60_000);
    expect(second.unfinished).toEqual([]);
    expect(second.stats).toMatchObject({ completed: 10, failed: 10, duplicateFinals: 0 });
    const dropped = second.outcomes.get('after-0');
    expect(dropped?.kind === 'failed' ? dropped.error : undefined).toMatchObject({ type: 'operation_dropped', processor: 'no-spam' });
    await after.close();

    // the new collection: accepted by the distributor and the indexer, processed by the new "news" pipeline
    const news = await FeedingClient.open({ mw: client, collection: 'news', log });
    for (let i = 0; i < 10; i++) await news.feed(doc(`news-${i}`, `headline ${i}`));
    const third = await news.drain(60_000);
    expect(third.unfinished).toEqual([]);
    expect(third.stats).toMatchObject({ completed: 10, failed: 0 });
    await news.close();
    const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect((await search.get('news', 'news-3'))?.attributes).toMatchObject({ title: 'headline 3', source: 'newswire' });

    // no restart: the same processes, still registered
    expect(processors.map((p) => p.pid)).toEqual(pids);
    expect(processors.every((p) => p.running)).toBe(true);
  }, 120_000);

  it('a pipeline the item processors cannot build is refused by them: they keep the current pipelines and go on processing', async () => {
    writeConfig(
      [
        { name: 'default', pipeline: 'standard' },
        { name: 'news', pipeline: 'news' },
      ],
      { ...PIPELINES_V2, pipelines: { ...PIPELINES_V2.pipelines, news: [{ type: 'no-such-stage' }] } },
    );
    await xmlRpcCall(cfgUrl, 'ReloadConfig', []);
    await waitFor(() => processors.every((p) => p.logs.some((l) => String(l['msg']).includes('does not build'))), { what: 'both processors refused the pipeline', timeoutMs: 10_000 });
    const news = await FeedingClient.open({ mw: client, collection: 'news', log });
    await news.feed(doc('news-after-bad', 'still fine'));
    const r = await news.drain(30_000);
    expect(r.stats.completed).toBe(1);
    await news.close();
    const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect((await search.get('news', 'news-after-bad'))?.attributes).toMatchObject({ source: 'newswire' });
  }, 60_000);

  it('SIGTERM: an item processor unregisters from the config server (UnregisterModule, MS-FSDPD 3.7.6)', async () => {
    const p = processors[1]!;
    expect(await p.stop()).toBe(0);
    const modules = (await xmlRpcCall(cfgUrl, 'GetActiveModuleList', ['ProcessorServer'])) as { port: number }[];
    expect(modules.map((m) => m.port)).toEqual([Number(new URL(statusUrls[0]!).port)]);
  }, 30_000);
});
