import { describe, expect, it } from 'vitest';
import { parseCli } from './cli';

describe('ssr-node cli', () => {
  it('--name is required', () => {
    expect(parseCli([], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--name/) });
  });

  it('defaults - heartbeat 200 ms, failure after 1500 ms, asynchronous replication, no reactivation window', () => {
    expect(parseCli(['--name', 'n1'], { NATS_URL: 'nats://h:4222' })).toMatchObject({
      kind: 'run',
      nats: ['nats://h:4222'],
      cluster: 'default',
      name: 'n1',
      heartbeatMs: 200,
      failAfterMs: 1500,
      waitForAck: false,
      replication: true,
      reactivation: undefined,
    });
  });

  it('a grace period not above the failure time is refused (replica timers would fire in a temporary failure)', () => {
    expect(parseCli(['--name', 'n1', '--fail-after-ms', '1000', '--grace-ms', '900'], {})).toMatchObject({ kind: 'error' });
  });

  it('reactivation window, ack mode, state file', () => {
    expect(parseCli(['--name', 'n1', '--reactivate-low-ms', '500', '--wait-for-ack', '--state-file', '/tmp/x.bin'], {})).toMatchObject({
      reactivation: { lowMs: 500, highMs: 1500 },
      waitForAck: true,
      stateFile: '/tmp/x.bin',
    });
  });
});
