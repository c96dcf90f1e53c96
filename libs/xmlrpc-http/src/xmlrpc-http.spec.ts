import { createLogger } from '@esp/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methodTable, startXmlRpcHttpServer, xmlRpcCall, XMLRPC_PATH, type XmlRpcHttpServer } from './index';

describe('XML-RPC over HTTP', () => {
  let server: XmlRpcHttpServer;
  let url: string;
  beforeAll(async () => {
    const dispatch = methodTable<{ address: string }>('Test', {
      Echo: { params: [{ name: 'text', type: 'string' }], run: ([t]) => t ?? '' },
      Names: { params: [{ name: 'names', type: 'string[]' }], run: ([n]) => (n as string[]).length },
      Boom: {
        params: [],
        run: () => {
          throw new Error('exploded');
        },
      },
    });
    server = await startXmlRpcHttpServer({ host: '127.0.0.1', port: 0, dispatch, log: createLogger('t', {}, { level: 'silent' }) });
    url = `http://127.0.0.1:${server.port}${XMLRPC_PATH}`;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers calls and checks parameter types', async () => {
    expect(await xmlRpcCall(url, 'Echo', ['hi'])).toBe('hi');
    expect(await xmlRpcCall(url, 'Names', [['a', 'b']])).toBe(2);
    await expect(xmlRpcCall(url, 'Echo', [42])).rejects.toMatchObject({ faultCode: -32602 });
    await expect(xmlRpcCall(url, 'Names', [[1]])).rejects.toMatchObject({ faultCode: -32602 });
  });

  it('gives faults for unknown methods, failing methods and malformed bodies, and keeps serving', async () => {
    await expect(xmlRpcCall(url, 'Nope', [])).rejects.toMatchObject({ faultCode: -32601 });
    await expect(xmlRpcCall(url, 'Boom', [])).rejects.toMatchObject({ faultString: expect.stringMatching(/exploded/) });
    const bad = await fetch(url, { method: 'POST', body: '<methodCall><methodName>Echo' });
    expect(await bad.text()).toMatch(/faultCode[\s\S]*-32700/);
    const big = await fetch(url, { method: 'POST', body: 'x'.repeat(2 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect((await fetch(url, { method: 'GET' })).status).toBe(405);
    expect(await xmlRpcCall(url, 'Echo', ['still here'])).toBe('still here');
  });
});
