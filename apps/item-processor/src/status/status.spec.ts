import { XmlRpcDouble, XmlRpcFault, decodeXmlRpcResponse, encodeXmlRpcRequest, type XmlRpcInput, type XmlRpcStruct, type XmlRpcValue } from '@esp/codecs';
import { createLogger } from '@esp/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_INVALID_PARAMS, FAULT_INVALID_REQUEST, FAULT_METHOD_NOT_FOUND, FAULT_NO_SUCH_BATCH, FAULT_PARSE_ERROR, StatusService, xmlSafe } from './status-service';
import { StatusState } from './status-state';
import { startXmlRpcHttpServer, type XmlRpcHttpServer } from '@esp/xmlrpc-http';

describe('Status tables and methods', () => {
  let t = 1_700_000_000_000;
  const state = new StatusState({ stages: ['utf8', 'html'], pipelines: ['default'] }, { now: () => t, maxItemLogs: 2 });
  const calls: string[] = [];
  const service = new StatusService(state, {
    reinitialize: () => (calls.push('reinitialize'), true),
    shutdownRequested: () => calls.push('shutdown'),
    leakDetect: () => calls.push('leak'),
  });

  it('GetModuleStatus - Started, IdleTime, Uptime, CurrentWork, Verbosity', () => {
    t += 5000;
    expect(service.call('GetModuleStatus', [])).toEqual({ Started: 1_700_000_000, IdleTime: 5, Uptime: 5, CurrentWork: 0, Verbosity: 2 });
    state.setProcessing(true);
    expect(service.call('GetModuleStatus', [])).toMatchObject({ IdleTime: 0, CurrentWork: 1 });
    t += 2000;
    state.setProcessing(false);
    t += 1000;
    expect(service.call('GetModuleStatus', [])).toMatchObject({ IdleTime: 1, Uptime: 8, CurrentWork: 0 });
    expect(service.call('SetDocumentTracing', [1])).toBe(1);
    expect(service.call('GetModuleStatus', [])).toMatchObject({ Verbosity: 3 });
    expect(service.call('SetDocumentTracing', [0])).toBe(1);
    expect(service.call('SetLogLevel', ['debug'])).toBe(1);
    expect(state.loggingVerbosity).toBe('debug');
    expect(service.call('GetModuleStatus', [])).toMatchObject({ Verbosity: 3 });
    service.call('SetLogLevel', ['normal']);
  });

  it('GetStatistics - Elapsed since the last reset, [stages, pipelines] of ProcessingStatistics with doubles for times', () => {
    state.addStage('utf8', true, { work: 0.5, user: 0.25, system: 0 });
    state.addStage('utf8', false, { work: 0.5, user: 0.25, system: 0.125 });
    state.addPipeline('default', false, { work: 1, user: 0.5, system: 0.125 });
    const s = service.call('GetStatistics', []) as XmlRpcStruct;
    const [stages, pipelines] = s['Statistics'] as [XmlRpcStruct, XmlRpcStruct];
    expect(Object.keys(stages)).toEqual(['utf8', 'html']);
    expect(stages['utf8']).toMatchObject({ OK: 1, ERROR: 1, WorkTime: new XmlRpcDouble(1), UserTime: new XmlRpcDouble(0.5), SystemTime: new XmlRpcDouble(0.125) });
    expect(stages['html']).toMatchObject({ OK: 0, ERROR: 0, WorkTime: new XmlRpcDouble(0) });
    const row = pipelines['default'] as XmlRpcStruct;
    for (const k of ['PageSwaps', 'VirtualMem', 'ResidentMem', 'MemUsage']) {
      expect(Number.isInteger(row[k])).toBe(true);
      expect(row[k]).toBeLessThanOrEqual(2 ** 31 - 1);
    }
    expect(row['ResidentMem']).toBeGreaterThan(1_000_000);
    expect(s['Elapsed']).toBe(8);
  });

  it('item and batch logs: bounded, newest last; GetBatchStatus of an unknown id is a fault', () => {
    const e = (status: 'OK' | 'ERROR') => ({ status, modified: t, msgs: [['INFO', 'm\u0001'] as const], elapsed: 0.4 });
    state.logItem('a', e('OK'));
    state.logItem('b', e('OK'));
    state.logItem('c', e('ERROR'));
    expect(service.call('GetDocumentStatusURIs', [])).toEqual(['b', 'c']);
    expect(service.call('GetDocumentStatusLogs', [])).toEqual([
      { Status: 'OK', Modified: Math.floor(t / 1000), Msgs: [['INFO', 'm\uFFFD']], Elapsed: 0, URI: 'b' },
      { Status: 'ERROR', Modified: Math.floor(t / 1000), Msgs: [['INFO', 'm\uFFFD']], Elapsed: 0, URI: 'c' },
    ]);
    expect(service.call('GetDocumentStatusLogs', ['c'])).toHaveLength(1);
    state.logBatch('17', e('OK'));
    expect(service.call('GetBatchStatusIDs', [])).toEqual(['17']);
    expect(service.call('GetBatchStatus', [17])).toMatchObject({ Status: 'OK' });
    expect(() => service.call('GetBatchStatus', [18])).toThrow(expect.objectContaining({ faultCode: FAULT_NO_SUCH_BATCH }));
  });

  it('FlushState / ResetContainer / ConfigurationChanged clear the tables; the stage rows come back at zero', () => {
    expect(service.call('FlushState', [])).toBe(1);
    expect(service.call('GetDocumentStatusURIs', [])).toEqual([]);
    expect(service.call('GetBatchStatusIDs', [])).toEqual([]);
    expect((service.call('GetStatistics', []) as XmlRpcStruct)['Elapsed']).toBe(0);
    calls.length = 0;
    expect(service.call('ResetContainer', [])).toBe(1);
    expect(service.call('ConfigurationChanged', ['collection', { any: ['thing'] }])).toBe(1);
    expect(service.call('ConfigurationChanged', ['configfile', ['DocumentProcessor', 'webcluster/reload_configfiles']])).toBe(1);
    expect(service.call('ConfigurationChanged', ['configfile', ['RTSearch', 'other.xml']])).toBe(1); // not ours: no reset
    expect(service.call('ConfigurationChanged', ['pipelines'])).toBe(1);
    expect(calls).toEqual(['reinitialize', 'reinitialize', 'reinitialize', 'reinitialize']);
  });

  it('LeakDetect, SetMemoryProfile, Shutdown (sets Terminating), ping', () => {
    expect(service.call('LeakDetect', [])).toBe(1);
    expect(service.call('SetMemoryProfile', [2])).toBe(1);
    expect(state.memoryProfile).toBe(true);
    expect(service.call('ping', [])).toBe('pong');
    expect(state.terminating).toBe(false);
    expect(service.call('Shutdown', [])).toBe(1);
    expect(state.terminating).toBe(true);
    expect(calls.slice(-2)).toEqual(['leak', 'shutdown']);
  });

  it.each([
    ['Nope', [], FAULT_METHOD_NOT_FOUND, /unknown method "Nope"; the Status interface has ConfigurationChanged, GetModuleStatus/],
    ['ping', [1], FAULT_INVALID_PARAMS, /ping\(\) takes 0 parameters, got 1/],
    ['GetBatchStatus', [], FAULT_INVALID_PARAMS, /GetBatchStatus\(int batchid\) takes 1 parameters, got 0/],
    ['GetBatchStatus', ['7'], FAULT_INVALID_PARAMS, /parameter batchid must be int, got string/],
    ['SetDocumentTracing', [new XmlRpcDouble(1)], FAULT_INVALID_PARAMS, /must be int, got double/],
    ['SetLogLevel', ['verbose'], FAULT_INVALID_PARAMS, /"normal" or "debug"/],
    ['ConfigurationChanged', [], FAULT_INVALID_PARAMS, /takes 1 to 2 parameters/],
  ] as [string, XmlRpcValue[], number, RegExp][])('%s(%j) - fault %i with a clear faultString', (method, params, code, text) => {
    try {
      service.call(method, params);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(XmlRpcFault);
      expect((err as XmlRpcFault).faultCode).toBe(code);
      expect((err as XmlRpcFault).faultString).toMatch(text);
    }
  });

  it('xmlSafe - keeps what XML can hold, replaces the rest', () => {
    expect(xmlSafe('ok ✓ 😀\t\n')).toBe('ok ✓ 😀\t\n');
    expect(xmlSafe('a\u0000b\uD800c\uFFFE')).toBe('a\uFFFDb\uFFFDc\uFFFD');
  });
});

describe('XML-RPC over HTTP', () => {
  let server: XmlRpcHttpServer;
  let url: string;
  beforeAll(async () => {
    server = await startXmlRpcHttpServer({
      host: '127.0.0.1',
      maxBodyBytes: 4096,
      log: createLogger('test'),
      dispatch: (method, params) => {
        if (method === 'echo') return params as XmlRpcInput;
        if (method === 'boom') throw new Error('kaputt');
        throw new XmlRpcFault(FAULT_METHOD_NOT_FOUND, `unknown method ${method}`);
      },
    });
    url = `http://127.0.0.1:${server.port}/RPC2`;
  });
  afterAll(() => server?.close());

  const post = async (body: string, path = '/RPC2') => {
    const r = await fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', body, headers: { 'Content-Type': 'text/xml' } });
    return { status: r.status, text: await r.text(), type: r.headers.get('content-type') };
  };
  const call = async (method: string, params: XmlRpcInput[]) => decodeXmlRpcResponse((await post(encodeXmlRpcRequest(method, params))).text);

  it('a call gets a methodResponse (text/xml)', async () => {
    const r = await post(encodeXmlRpcRequest('echo', ['x', 2]));
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/xml/);
    expect(decodeXmlRpcResponse(r.text)).toEqual({ kind: 'value', value: ['x', 2] });
  });

  it('bad XML, a non-methodCall, an unknown method and a throwing method are faults; the server keeps serving', async () => {
    const parse = decodeXmlRpcResponse((await post('<methodCall><methodName>x</methodName')).text);
    expect(parse).toMatchObject({ kind: 'fault', fault: { faultCode: FAULT_PARSE_ERROR, faultString: expect.stringMatching(/^request is not valid XML-RPC: /) } });
    const notCall = decodeXmlRpcResponse((await post('<methodResponse><params/></methodResponse>')).text);
    expect(notCall).toMatchObject({ kind: 'fault', fault: { faultCode: FAULT_INVALID_REQUEST } });
    const dtd = decodeXmlRpcResponse((await post('<!DOCTYPE x [<!ENTITY a "b">]><methodCall><methodName>&a;</methodName></methodCall>')).text);
    expect(dtd).toMatchObject({ kind: 'fault', fault: { faultString: expect.stringMatching(/DOCTYPE|DTD/i) } });
    expect(await call('nope', [])).toMatchObject({ kind: 'fault', fault: { faultCode: FAULT_METHOD_NOT_FOUND, faultString: 'unknown method nope' } });
    expect(await call('boom', [])).toMatchObject({ kind: 'fault', fault: { faultString: 'boom failed: kaputt' } });
    expect(await call('echo', ['still here'])).toEqual({ kind: 'value', value: ['still here'] });
  });

  it('a body over the limit gets 413; another path 404; GET 405', async () => {
    expect((await post(encodeXmlRpcRequest('echo', ['x'.repeat(5000)]))).status).toBe(413);
    expect((await post(encodeXmlRpcRequest('echo', []), '/other')).status).toBe(404);
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(await call('echo', ['after'])).toEqual({ kind: 'value', value: ['after'] });
  });

  it('a chunked body over the limit is refused too', async () => {
    const big = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode('x'.repeat(1000)));
        c.close();
      },
    });
    const r = await fetch(url, { method: 'POST', body: big, duplex: 'half' } as RequestInit);
    expect(r.status).toBe(413);
  });
});
