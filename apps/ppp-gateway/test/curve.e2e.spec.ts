/**
 * CURVE on the gateway (ZeroMQ RFC 26, admission by RFC 27 ZAP), with Python peers (python3-zmq): a worker and a
 * client whose keys are allowed are served; a client with another key, or without CURVE, gets nothing through.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { PppQueue } from '@esp/ppp';
import { NatsServer, waitFor } from '@esp/testing';
import { curveKeyPair } from 'zeromq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CurveKeyError, loadClientKeys, loadOrCreateKeyPair } from '../src/curve-keys';
import { startGateway, type Gateway } from '../src/gateway';
import { z85Encode } from '../src/z85';

const PYTHON = '/usr/bin/python3';
const PEERS = fileURLToPath(new URL('./peers/', import.meta.url));
const HB = 250;

function python(script: string, args: string[]): { lines: string[]; exited: Promise<number | null>; kill(): void } {
  const child = spawn(PYTHON, [PEERS + script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(l));
  child.stderr.on('data', (d: Buffer) => lines.push(`stderr: ${d.toString()}`));
  // 'close': the exit code once stdout is read to its end, every line in `lines`
  return { lines, exited: new Promise((r) => child.once('close', (code) => r(code))), kill: () => child.kill('SIGKILL') };
}
// --flag=value: a Z85 key may start with "-", which argparse would take for an option
const curveArgs = (server: string, own: { publicKey: string; secretKey: string }) => [`--curve-server-key=${server}`, `--curve-public-key=${own.publicKey}`, `--curve-secret-key=${own.secretKey}`];

describe('ppp-gateway with CURVE', () => {
  let ns: NatsServer;
  let mw: Middleware;
  let queue: PppQueue;
  let gateway: Gateway;
  const dir = mkdtempSync(join(tmpdir(), 'ppp-curve-'));
  const worker = curveKeyPair();
  const client = curveKeyPair();
  const stranger = curveKeyPair();
  let serverKey: string;

  beforeAll(async () => {
    ns = await NatsServer.start({ jetstream: false });
    mw = await Middleware.connect({ name: 'ppp-curve-test', servers: ns.url });
    queue = await PppQueue.start(mw.bus, { service: 'curve', heartbeatMs: HB });
    const { keys, created } = loadOrCreateKeyPair(join(dir, 'gateway.key'));
    expect(created).toBe(true);
    serverKey = keys.publicKey;
    // "#" is a Z85 character: keys that start with it must not be read as comments
    writeFileSync(join(dir, 'clients'), `# allowed peers\n#\n${worker.publicKey}\n${client.publicKey}  # the client\n#${'0'.repeat(39)}\n`);
    gateway = await startGateway(mw.bus, {
      service: 'curve',
      frontend: 'tcp://127.0.0.1:*',
      backend: 'tcp://127.0.0.1:*',
      heartbeatMs: HB,
      liveness: 3,
      requestTimeoutMs: 10_000,
      maxInflight: 100,
      curve: { keys, clients: loadClientKeys(join(dir, 'clients')) },
      log: createLogger('ppp-curve-test', {}, { level: 'silent' }),
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await queue?.stop();
    await mw?.close();
    await ns?.cleanup();
  });

  it('the key file is generated once, owner-only, and read back the same', () => {
    const file = join(dir, 'gateway.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^public-key = .{40}\nsecret-key = .{40}\n$/);
    expect(loadOrCreateKeyPair(file)).toMatchObject({ created: false, keys: { publicKey: serverKey } });
    writeFileSync(join(dir, 'bad.key'), 'public-key = short\n');
    expect(() => loadOrCreateKeyPair(join(dir, 'bad.key'))).toThrow(CurveKeyError);
    writeFileSync(join(dir, 'bad-clients'), 'not a key\n');
    expect(() => loadClientKeys(join(dir, 'bad-clients'))).toThrow(/bad-clients:1/);
    expect(loadClientKeys(join(dir, 'clients'))).toEqual(new Set([worker.publicKey, client.publicKey, `#${'0'.repeat(39)}`]));
  });

  it('an allowed worker and an allowed client talk through the gateway; a stranger and a plain client get nothing', async () => {
    const w = python('ppworker.py', [gateway.backend, 'cw', '--interval-ms', String(HB), ...curveArgs(serverKey, worker)]);
    try {
      await waitFor(() => queue.machine.stats.workers === 1, { what: 'the CURVE worker READY at the queue' });
      const ok = python('lpclient.py', [gateway.frontend, '5', '--timeout-ms', '2500', '--retries', '2', ...curveArgs(serverKey, client)]);
      expect(await ok.exited).toBe(0);
      expect(ok.lines.filter((l) => l.startsWith('reply cw:'))).toHaveLength(5);
      const refused = python('lpclient.py', [gateway.frontend, '1', '--timeout-ms', '700', '--retries', '1', ...curveArgs(serverKey, stranger)]);
      const plain = python('lpclient.py', [gateway.frontend, '1', '--timeout-ms', '700', '--retries', '1']);
      expect(await refused.exited).toBe(1);
      expect(await plain.exited).toBe(1);
      expect([...refused.lines, ...plain.lines].filter((l) => l.startsWith('reply'))).toEqual([]);
    } finally {
      w.kill();
      await w.exited;
    }
  }, 60_000);

  it('Z85 as RFC 32 gives it, and as python3-zmq encodes a key', async () => {
    expect(z85Encode(Uint8Array.of(0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b))).toBe('HelloWorld');
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);
    const child = spawn(PYTHON, ['-c', 'import sys, zmq.utils.z85 as z; print(z.encode(bytes.fromhex(sys.argv[1])).decode())', Buffer.from(bytes).toString('hex')]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => child.once('exit', r));
    expect(z85Encode(bytes)).toBe(out.trim());
  });
});
