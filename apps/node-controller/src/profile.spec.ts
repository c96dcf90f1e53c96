import { describe, expect, it } from 'vitest';
import { parseCli } from './cli';
import { expandProfile } from './profile';

describe('node profile', () => {
  it('expands instances into <name>-<n> with {name} and {instance} filled in args and env', () => {
    const specs = expandProfile({
      processes: [
        { name: 'name-server', entry: 'apps/name-server/src/main.ts' },
        { name: 'item-processor', entry: 'apps/item-processor/src/main.ts', instances: 2, args: ['--name', '{name}'], env: { N: '{instance}' } },
      ],
    });
    expect(specs).toEqual([
      { name: 'name-server', entry: 'apps/name-server/src/main.ts', args: [], env: {} },
      { name: 'item-processor-1', entry: 'apps/item-processor/src/main.ts', args: ['--name', 'item-processor-1'], env: { N: '1' } },
      { name: 'item-processor-2', entry: 'apps/item-processor/src/main.ts', args: ['--name', 'item-processor-2'], env: { N: '2' } },
    ]);
  });
  it('refuses unknown keys, bad names, zero instances and duplicate names, saying where', () => {
    expect(() => expandProfile({ processes: [{ name: 'a', entry: 'x', extra: 1 }] })).toThrow(/processes\.0: Unrecognized key/);
    expect(() => expandProfile({ processes: [{ name: '-a', entry: 'x' }] })).toThrow(/processes\.0\.name/);
    expect(() => expandProfile({ processes: [{ name: 'a', entry: 'x', instances: 0 }] })).toThrow(/instances/);
    expect(() => expandProfile({ processes: [{ name: 'a-1', entry: 'x' }, { name: 'a', entry: 'x', instances: 2 }] })).toThrow(/two processes are named "a-1"/);
  });
});

describe('node-controller cli', () => {
  it('needs --profile; defaults; --config-server gets /RPC2', () => {
    expect(parseCli([])).toMatchObject({ kind: 'error', message: expect.stringMatching(/--profile/) });
    expect(parseCli(['--profile', 'n.json', '--config-server', 'http://cfg:16005'])).toMatchObject({
      kind: 'run', port: 0, listen: '127.0.0.1', restartDelayMs: 100, stopTimeoutMs: 10_000, configServer: 'http://cfg:16005/RPC2',
    });
    expect(parseCli(['--profile', 'n', '--port', '70000'])).toMatchObject({ kind: 'error', message: expect.stringMatching(/--port/) });
    expect(parseCli(['--profile', 'n', '--config-server', 'cfg:1'])).toMatchObject({ kind: 'error' });
    expect(parseCli(['-h'])).toMatchObject({ kind: 'help', text: expect.stringMatching(/Usage: node-controller/) });
  });
});
