import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '@esp/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSecret, AdminSecretError, carriesSecret, methodTable, startXmlRpcHttpServer, xmlRpcCall, XmlRpcResponseTooLarge, XMLRPC_PATH, type XmlRpcHttpServer } from './index';

const log = createLogger('t', {}, { level: 'silent' });
const SECRET = 'a-long-enough-admin-secret-0123';
const dispatch = methodTable<{ address: string }>('Test', {
  Status: { params: [], run: () => 'fine' },
  Stop: { params: [{ name: 'what', type: 'string' }], run: ([w]) => `stopped ${String(w)}` },
  Big: { params: [{ name: 'n', type: 'int' }], run: ([n]) => 'x'.repeat(n as number) },
});
const protect = (m: string) => m === 'Stop';
const python = async (url: string, method: string, arg: string): Promise<string> => {
  const script = 'import sys, xmlrpc.client\ntry:\n    print(getattr(xmlrpc.client.ServerProxy(sys.argv[1]), sys.argv[2])(sys.argv[3]))\nexcept xmlrpc.client.ProtocolError as e:\n    print("HTTP", e.errcode)';
  const { stdout } = await promisify(execFile)('python3', ['-c', script, url, method, arg]);
  return stdout.trim();
};
/** An address of this machine that is not loopback, if it has one. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('state-changing XML-RPC methods and the admin secret', () => {
  let withSecret: XmlRpcHttpServer;
  let without: XmlRpcHttpServer;
  beforeAll(async () => {
    withSecret = await startXmlRpcHttpServer({ port: 0, dispatch, protect, secret: SECRET, log });
    without = await startXmlRpcHttpServer({ host: '0.0.0.0', port: 0, dispatch, protect, secret: null, log });
  });
  afterAll(async () => {
    await withSecret?.close();
    await without?.close();
  });
  const at = (s: XmlRpcHttpServer, host = '127.0.0.1') => `http://${host}:${s.port}${XMLRPC_PATH}`;

  it('listens on 127.0.0.1 unless told otherwise', () => {
    expect(withSecret.host).toBe('127.0.0.1');
  });

  it('with a secret: a protected method needs it (401 without, or with a wrong one); so does a read, but ping', async () => {
    await expect(xmlRpcCall(at(withSecret), 'Stop', ['indexer'], { secret: null })).rejects.toThrow(/HTTP 401 Stop changes state/);
    await expect(xmlRpcCall(at(withSecret), 'Stop', ['indexer'], { secret: 'not-the-secret-but-long' })).rejects.toThrow(/HTTP 401/);
    expect(await xmlRpcCall(at(withSecret), 'Stop', ['indexer'], { secret: SECRET })).toBe('stopped indexer');
    // reads need it too: a local user who reaches the port learns nothing without it
    await expect(xmlRpcCall(at(withSecret), 'Status', [], { secret: null })).rejects.toThrow(/HTTP 401 Status reads the stack's state/);
    expect(await xmlRpcCall(at(withSecret), 'Status', [], { secret: SECRET })).toBe('fine');
    const raw = await fetch(at(withSecret), { method: 'POST', body: '<methodCall><methodName>Stop</methodName><params><param><value>x</value></param></params></methodCall>', headers: { Authorization: `Bearer ${SECRET}` } });
    expect(await raw.text()).toContain('stopped x');
  });

  it('Python xmlrpc.client sends the secret as the password of its URL', async () => {
    expect(await python(at(withSecret).replace('http://', `http://esp:${SECRET}@`), 'Stop', 'ip1')).toBe('stopped ip1');
    expect(await python(at(withSecret), 'Stop', 'ip1')).toBe('HTTP 401');
  });

  it('the client reads the secret from $ESP_ADMIN_SECRET_FILE by default', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secret-')), 'admin-secret');
    writeFileSync(file, SECRET + '\n');
    const saved = process.env['ESP_ADMIN_SECRET_FILE'];
    process.env['ESP_ADMIN_SECRET_FILE'] = file;
    try {
      expect(await xmlRpcCall(at(withSecret), 'Stop', ['a'])).toBe('stopped a');
    } finally {
      if (saved === undefined) delete process.env['ESP_ADMIN_SECRET_FILE'];
      else process.env['ESP_ADMIN_SECRET_FILE'] = saved;
    }
  });

  it('--admin-read-open: with a secret, reads answer without it; state changes still need it', async () => {
    const open = await startXmlRpcHttpServer({ port: 0, dispatch, protect, secret: SECRET, readOpen: true, log });
    try {
      expect(await xmlRpcCall(at(open), 'Status', [], { secret: null })).toBe('fine');
      await expect(xmlRpcCall(at(open), 'Stop', ['x'], { secret: null })).rejects.toThrow(/HTTP 401/);
    } finally {
      await open.close();
    }
  });

  it('without a secret: a protected method runs for a caller on this machine only', async () => {
    expect(await xmlRpcCall(at(without), 'Stop', ['x'], { secret: null })).toBe('stopped x');
    expect(lanAddress, 'this test needs a non-loopback IPv4 address').toBeDefined();
    await expect(xmlRpcCall(at(without, lanAddress), 'Stop', ['x'], { secret: null })).rejects.toThrow(/HTTP 403 .*only this machine/);
    expect(await xmlRpcCall(at(without, lanAddress), 'Status', [], { secret: null })).toBe('fine');
  });

  it('the client bounds the response: declared or streamed, a larger one is refused and not read', async () => {
    await expect(xmlRpcCall(at(withSecret), 'Big', [100_000], { maxResponseBytes: 10_000, secret: SECRET })).rejects.toBeInstanceOf(XmlRpcResponseTooLarge);
    expect(String(await xmlRpcCall(at(withSecret), 'Big', [5_000], { maxResponseBytes: 10_000, secret: SECRET })).length).toBe(5_000);
    // a hostile server that streams without end and without Content-Length
    let sent = 0;
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/xml' });
      const push = () => {
        while (sent < 50_000_000 && res.write('<'.repeat(65_536))) sent += 65_536;
        if (sent < 50_000_000) res.once('drain', push);
        else res.end();
      };
      push();
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/RPC2`;
      await expect(xmlRpcCall(url, 'Status', [], { maxResponseBytes: 1_000_000 })).rejects.toBeInstanceOf(XmlRpcResponseTooLarge);
      expect(sent).toBeLessThan(20_000_000);
    } finally {
      endless.closeAllConnections();
      endless.close();
    }
  });
});

describe('admin secret file and header', () => {
  it('a missing or too short secret file is an AdminSecretError naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secret-'));
    expect(() => adminSecret(join(dir, 'missing'))).toThrow(AdminSecretError);
    writeFileSync(join(dir, 'short'), 'abc');
    expect(() => adminSecret(join(dir, 'short'))).toThrow(/shorter than 16/);
    expect(adminSecret('')).toBeUndefined();
  });
  it('Basic with any user name, or Bearer; nothing else', () => {
    expect(carriesSecret(`Basic ${Buffer.from(`anyone:${SECRET}`).toString('base64')}`, SECRET)).toBe(true);
    expect(carriesSecret(`Bearer ${SECRET}`, SECRET)).toBe(true);
    expect(carriesSecret(`Basic ${Buffer.from(SECRET).toString('base64')}`, SECRET)).toBe(false);
    expect(carriesSecret(`Bearer ${SECRET}x`, SECRET)).toBe(false);
    expect(carriesSecret(`Digest ${SECRET}`, SECRET)).toBe(false);
    expect(carriesSecret(undefined, SECRET)).toBe(false);
  });
});
