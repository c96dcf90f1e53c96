import { describe, expect, it } from 'vitest';
import { parseCli } from './cli';

describe('item-processor cli', () => {
  it('defaults: NATS_URL, free status port, base port 16000, 180 s lease, no pipeline file', () => {
    expect(parseCli([], { NATS_URL: 'nats://a:1,nats://b:2' })).toEqual({
      kind: 'run',
      nats: ['nats://a:1', 'nats://b:2'],
      security: {},
      name: undefined,
      host: undefined,
      statusPort: 0,
      statusListen: '127.0.0.1',
      pipelineConfig: undefined,
      configServer: undefined,
      basePort: 16000,
      reregistrationLeaseMs: 180_000,
      leaseSeconds: 300,
      heartbeatMs: 1000,
      maxDocumentBytes: 104_857_600,
      inlineMaxBytes: 262_144,
      wait: false,
    });
  });

  it('takes every option', () => {
    const cli = parseCli(
      ['--nats', 'nats://x:4222', '--name', 'p1', '--status-port', '13410', '--pipeline-config', 'p.json', '--base-port', '14000', '--reregistration-lease', '0.5', '--wait', '--host', 'h', '--status-listen', '127.0.0.1', '--heartbeat-ms', '250', '--lease-seconds', '20'],
      {},
    );
    expect(cli).toMatchObject({ leaseSeconds: 20, kind: 'run', nats: ['nats://x:4222'], name: 'p1', statusPort: 13410, pipelineConfig: 'p.json', basePort: 14000, reregistrationLeaseMs: 500, wait: true, host: 'h', statusListen: '127.0.0.1', heartbeatMs: 250 });
  });

  it('--config-server takes an http URL and refuses anything else', () => {
    expect(parseCli(['--config-server', 'http://127.0.0.1:16005/RPC2'], {})).toMatchObject({ kind: 'run', configServer: 'http://127.0.0.1:16005/RPC2' });
    expect(parseCli(['--config-server', '127.0.0.1:16005'], {})).toEqual({ kind: 'error', message: expect.stringMatching(/--config-server must be an http:\/\/ URL/) });
  });

  it('--help gives the usage text', () => {
    expect(parseCli(['--help'], {})).toMatchObject({ kind: 'help', text: expect.stringMatching(/Usage: item-processor[\s\S]*--status-port/) });
  });

  it.each([
    [['--bogus'], /bogus/],
    [['--status-port', 'x'], /--status-port must be an integer from 0 to 65535/],
    [['--status-port', '70000'], /--status-port/],
    [['--base-port', '65500'], /beyond 65535/],
    [['--reregistration-lease', '0'], /--reregistration-lease must be a positive number/],
    [['--name', ' '], /--name must not be empty/],
    [['--heartbeat-ms', '0'], /--heartbeat-ms must be an integer from 10/],
  ])('refuses %j with a clear message', (argv, message) => {
    expect(parseCli(argv, {})).toMatchObject({ kind: 'error', message: expect.stringMatching(message) });
  });
});

describe('item-processor cli: claim check limits', () => {
  it('--max-document-bytes and --inline-max-bytes are taken, and checked', () => {
    expect(parseCli(['--max-document-bytes', '1000', '--inline-max-bytes', '2048'], {})).toMatchObject({ kind: 'run', maxDocumentBytes: 1000, inlineMaxBytes: 2048 });
    expect(parseCli(['--max-document-bytes', '0'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--max-document-bytes/) });
    expect(parseCli(['--inline-max-bytes', 'lots'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--inline-max-bytes/) });
  });
});
