import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BytearrayAttribute, DocumentEntity, DocumentId, OperationSet, StringAttribute, SubsystemIdSet, UpdateOperation } from '@esp/codecs';
import { Middleware, serveNameServer } from '@esp/middleware';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startItemProcessor, type ItemProcessor } from '../src/item-processor';
import { FakeDistributor, FakeIndexer } from './fakes';

const run = promisify(execFile);

/** Runs a Python script with xmlrpc.client against the status URL (argv[1]); returns what it printed as JSON. */
async function python(script: string, url: string): Promise<Record<string, unknown>> {
  const prelude = 'import json, sys, xmlrpc.client\ns = xmlrpc.client.ServerProxy(sys.argv[1], allow_none=True)\n';
  const { stdout } = await run('python3', ['-c', prelude + script, url], { encoding: 'utf8', timeout: 20_000 });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const SETUP = `
out = {
  "ping": s.ping(),
  "SetLogLevel": s.SetLogLevel("debug"),
  "SetDocumentTracing": s.SetDocumentTracing(1),
  "SetMemoryProfile": s.SetMemoryProfile(1),
  "GetModuleStatus": s.GetModuleStatus(),
}
out["types"] = {k: type(v).__name__ for k, v in out["GetModuleStatus"].items()}
print(json.dumps(out))
`;

const READ = `
out = {}
out["GetModuleStatus"] = s.GetModuleStatus()
out["GetStatistics"] = st = s.GetStatistics()
stages, pipelines = st["Statistics"]
out["stat_types"] = {k: type(v).__name__ for k, v in stages["utf8"].items()}
out["GetDocumentStatusURIs"] = s.GetDocumentStatusURIs()
out["GetDocumentStatusLogs"] = s.GetDocumentStatusLogs()
out["GetBatchStatusIDs"] = ids = s.GetBatchStatusIDs()
out["GetBatchStatus"] = s.GetBatchStatus(int(ids[0]))
out["LeakDetect"] = s.LeakDetect()
faults = {}
for name, call in [("unknown", lambda: s.NoSuchMethod()), ("params", lambda: s.GetBatchStatus("x")), ("count", lambda: s.ping(1)), ("batch", lambda: s.GetBatchStatus(999999))]:
    try:
        call()
        faults[name] = None
    except xmlrpc.client.Fault as f:
        faults[name] = [f.faultCode, f.faultString]
out["faults"] = faults
out["ConfigurationChanged"] = s.ConfigurationChanged("configfile", ["DocumentProcessor", "webcluster/reload_configfiles"])
out["after_reset"] = s.GetDocumentStatusURIs()
out["ConfigurationChanged_any"] = s.ConfigurationChanged("collection", {"name": "news", "n": [1, 2.5, None]})
out["FlushState"] = s.FlushState()
out["ResetContainer"] = s.ResetContainer()
out["stats_after_reset"] = s.GetStatistics()["Statistics"][0]["utf8"]["OK"]
out["Shutdown"] = s.Shutdown()
out["ping_after_shutdown"] = s.ping()
print(json.dumps(out))
`;

describe('Status XML-RPC with a Python xmlrpc.client (MS-FSDPD 3.7.4)', () => {
  let ns: NatsServer;
  let nameServer: Middleware;
  let peers: Middleware;
  let cd: FakeDistributor;
  let indexer: FakeIndexer;
  let ip: ItemProcessor;
  let shutdownRequests = 0;

  beforeAll(async () => {
    ns = await NatsServer.start();
    nameServer = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nameServer);
    peers = await Middleware.connect({ name: 'peers', servers: ns.url });
    cd = await FakeDistributor.start(peers);
    indexer = await FakeIndexer.start(peers);
    ip = await startItemProcessor({
      nats: ns.url,
      name: 'ip-python',
      host: '127.0.0.1',
      statusListen: '127.0.0.1',
      retry: { initialMs: 20, maxMs: 200 },
      onShutdownRequest: () => shutdownRequests++,
    });
    await ip.whenRegistered();
  });
  afterAll(async () => {
    await ip?.stop();
    await peers?.close();
    await nameServer?.close();
    await ns?.cleanup();
  });

  it('all fifteen methods answer a Python client with the structures of 2.2.39-2.2.44', async () => {
    const setup = await python(SETUP, ip.status_url);
    expect(setup).toMatchObject({ ping: 'pong', SetLogLevel: 1, SetDocumentTracing: 1, SetMemoryProfile: 1 });
    expect(setup['GetModuleStatus']).toEqual({ Started: expect.any(Number), IdleTime: expect.any(Number), Uptime: expect.any(Number), CurrentWork: 0, Verbosity: 3 });
    expect(setup['types']).toEqual({ Started: 'int', IdleTime: 'int', Uptime: 'int', CurrentWork: 'int', Verbosity: 'int' });
    expect(Math.abs((setup['GetModuleStatus'] as { Started: number }).Started - Date.now() / 1000)).toBeLessThan(60);

    // a batch, so that the tables have rows
    const doc = (id: string, body: Uint8Array) =>
      new DocumentEntity({ doc_id: new DocumentId({ id }), document_attributes: [new StringAttribute({ key: 'url', value: `https://ex.org/${id}` }), new BytearrayAttribute({ key: 'body', value: body })] });
    const batch = new OperationSet({
      completed_op_id: 0,
      operations: [
        new UpdateOperation({ id: 41, doc: doc('https://ex.org/ok', new TextEncoder().encode('<html><title>T</title><body>hi</body></html>')) }),
        // a UTF-8 byte order mark, then a byte that is not UTF-8: the charset stage refuses it (utf8_error)
        new UpdateOperation({ id: 42, doc: doc('https://ex.org/bad', Uint8Array.of(0xef, 0xbb, 0xbf, 0xff)) }),
      ],
    });
    const before = cd.processed.length;
    await cd.processor('ip-python').process(indexer.aor, 3, 'web', batch, new SubsystemIdSet({ ids: ['indexing'] }));
    await cd.nextProcessed(before);

    const r = await python(READ, ip.status_url);
    // ModuleStatus
    expect(r['GetModuleStatus']).toMatchObject({ CurrentWork: 0, Verbosity: 3 });
    // Statistics: Elapsed, [stages, pipelines] of ProcessingStatistics
    const stats = r['GetStatistics'] as { Elapsed: number; Statistics: [Record<string, Record<string, number>>, Record<string, Record<string, number>>] };
    expect(Number.isInteger(stats.Elapsed)).toBe(true);
    expect(stats.Statistics).toHaveLength(2);
    expect(Object.keys(stats.Statistics[0])).toEqual(['detect', 'charset', 'pdf', 'docx', 'utf8', 'xml', 'html', 'title', 'normalize']);
    expect(Object.keys(stats.Statistics[1])).toEqual(['default']);
    expect(stats.Statistics[0]['charset']).toMatchObject({ OK: 1, ERROR: 1 });
    expect(stats.Statistics[0]['utf8']).toMatchObject({ OK: 1, ERROR: 0 });
    expect(stats.Statistics[0]['html']).toMatchObject({ OK: 1, ERROR: 0 });
    expect(stats.Statistics[1]['default']).toMatchObject({ OK: 1, ERROR: 1 });
    expect(stats.Statistics[1]['default']!['ResidentMem']).toBeGreaterThan(1_000_000);
    expect(r['stat_types']).toEqual({
      OK: 'int', ERROR: 'int', WorkTime: 'float', UserTime: 'float', SystemTime: 'float',
      PageSwaps: 'int', VirtualMem: 'int', ResidentMem: 'int', MemUsage: 'int',
    });
    // Item log: ItemStatusLog = array of ItemLog (+ URI)
    expect(r['GetDocumentStatusURIs']).toEqual(['https://ex.org/ok', 'https://ex.org/bad']);
    const logs = r['GetDocumentStatusLogs'] as { Status: string; Modified: number; Msgs: [string, string][]; Elapsed: number; URI: string }[];
    expect(logs.map((l) => [l.URI, l.Status])).toEqual([['https://ex.org/ok', 'OK'], ['https://ex.org/bad', 'ERROR']]);
    for (const l of logs) {
      expect(Object.keys(l).sort()).toEqual(['Elapsed', 'Modified', 'Msgs', 'Status', 'URI']);
      expect(l.Msgs.every(([level, text]) => ['INFO', 'WARNING', 'ERROR'].includes(level) && typeof text === 'string')).toBe(true);
    }
    const okMsgs = logs[0]!.Msgs.map((m) => m.join(' '));
    expect(okMsgs).toContain('INFO charset: body changed = "<html><title>T</title><body>hi</body></html>"'); // tracing: attribute changes
    expect(okMsgs).toContain('INFO html: title added = "T"');
    expect(okMsgs.some((m) => /^INFO html: ok in [\d.]+ ms$/.test(m))).toBe(true); // debug: per-stage lines
    expect(logs[1]!.Msgs).toContainEqual(['ERROR', 'charset: attribute "body": declared UTF-8 (bom) but invalid UTF-8 at byte 3 (0xff)']);
    // batch log
    expect(r['GetBatchStatusIDs']).toEqual(['41']);
    const b = r['GetBatchStatus'] as { Status: string; Msgs: [string, string][] };
    expect(b.Status).toBe('ERROR');
    expect(b.Msgs[0]).toEqual(['INFO', '2 operations (41..42) of session 3, collection "web", pipeline "default"']);
    expect(b.Msgs.some(([l, m]) => l === 'INFO' && /^memory: JS heap \d+ bytes in use/.test(m))).toBe(true); // SetMemoryProfile
    // the rest
    expect(r).toMatchObject({ LeakDetect: 1, ConfigurationChanged: 1, after_reset: [], ConfigurationChanged_any: 1, FlushState: 1, ResetContainer: 1, stats_after_reset: 0, Shutdown: 1, ping_after_shutdown: 'pong' });
    const faults = r['faults'] as Record<string, [number, string]>;
    expect(faults['unknown']).toEqual([-32601, expect.stringMatching(/unknown method "NoSuchMethod"/)]);
    expect(faults['params']).toEqual([-32602, 'GetBatchStatus(int batchid): parameter batchid must be int, got string']);
    expect(faults['count']).toEqual([-32602, 'ping() takes 0 parameters, got 1']);
    expect(faults['batch']).toEqual([1, expect.stringMatching(/no log of batch 999999/)]);
    // Shutdown set Terminating
    expect(ip.status.terminating).toBe(true);
    expect(shutdownRequests).toBe(1);
  });
});
