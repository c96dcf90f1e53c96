import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliStack, cliStackStarted } from './cli-stack';
import { stackState } from './stack-state';

/** A pid that no process has any more: a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('stack.json of a launcher: starting, running, stopped, gone', () => {
  let dir: string;
  let home: string;
  const write = (o: Record<string, unknown>): void => writeFileSync(join(home, 'stack.json'), JSON.stringify(o));
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'esp-stack-state-'));
    home = join(dir, 'h');
    mkdirSync(join(home, 'nats-auth'), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the state the launcher wrote, and a live state of a dead launcher is gone', () => {
    expect(stackState(home)).toEqual({ state: 'none' });
    write({ state: 'running', launcher_pid: process.pid, nats: 'nats://127.0.0.1:40001' });
    expect(stackState(home)).toEqual({ state: 'running', launcherPid: process.pid, nats: 'nats://127.0.0.1:40001' });
    const dead = deadPid();
    write({ state: 'running', launcher_pid: dead, nats: 'nats://127.0.0.1:40001' });
    expect(stackState(home)).toMatchObject({ state: 'gone', launcherPid: dead });
    write({ state: 'stopped', launcher_pid: dead, nats: 'nats://127.0.0.1:40001', stopped_at: '2026-12-08T00:00:00.000Z' });
    expect(stackState(home)).toMatchObject({ state: 'stopped', stoppedAt: '2026-12-08T00:00:00.000Z' });
    // written by hand or by an older launcher: only its URL counts
    write({ nats: 'nats://127.0.0.1:40001' });
    expect(stackState(home)).toEqual({ state: 'unknown', nats: 'nats://127.0.0.1:40001' });
  });

  it('a stopped or gone stack is no stack, said at once; a named server is still used', () => {
    write({ state: 'stopped', launcher_pid: deadPid(), nats: 'nats://127.0.0.1:40001', stopped_at: '2026-12-08T00:00:00.000Z' });
    const s = cliStack(['--home', home], {}, 'client');
    expect(s.kind).toBe('no-stack');
    if (s.kind === 'no-stack') expect(s.message).toMatch(/is stopped \(at 2026-12-08T00:00:00.000Z\); start it with `npm start` -- --home/);
    write({ state: 'running', launcher_pid: deadPid(), nats: 'nats://127.0.0.1:40001' });
    const g = cliStack(['--home', home], {}, 'client');
    if (g.kind !== 'no-stack') throw new Error('a gone stack was taken');
    expect(g.message).toMatch(/not running: its launcher \(pid \d+\) is gone/);
    expect(cliStack(['--home', home, '--nats', 'nats://127.0.0.1:40002'], {}, 'client')).toMatchObject({ kind: 'stack', natsFrom: '--nats' });
  });

  it('a stack starting without a server yet: the command waits for the URL this start writes, never the one before', async () => {
    write({ state: 'starting', launcher_pid: process.pid });
    const waits: string[] = [];
    setTimeout(() => write({ state: 'starting', launcher_pid: process.pid, nats: 'nats://127.0.0.1:40003' }), 600);
    const t0 = Date.now();
    const s = await cliStackStarted(['--home', home], {}, 'client', undefined, (m) => waits.push(m));
    expect(s).toMatchObject({ kind: 'stack', stackNats: 'nats://127.0.0.1:40003' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(waits).toEqual([expect.stringMatching(/is starting: waiting up to 30 s for its NATS server/)]);
    // bounded by --wait-for-nats
    write({ state: 'starting', launcher_pid: process.pid });
    const late = await cliStackStarted(['--home', home, '--wait-for-nats', '0.5'], {}, 'client', undefined);
    expect(late).toMatchObject({ kind: 'no-stack', starting: true });
  });
});
