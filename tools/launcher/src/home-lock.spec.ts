import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@esp/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireHomeLock, HomeInUse, HomeNotOurs, isNatsServerOn, LOCK_FILE, procStart, sameProcessAlive, type HomeLock } from './home-lock';

/** The pid of a process that has exited (and been reaped). */
const deadPid = (): number => Number(spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());

describe('the home lock', () => {
  let home: string;
  let lock: HomeLock | undefined;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'esp-lock-'));
  });
  afterEach(() => {
    lock?.release();
    lock = undefined;
    rmSync(home, { recursive: true, force: true });
  });

  it('holds the launcher pid; a second acquire while it lives is refused with home_in_use naming it; release frees it', () => {
    lock = acquireHomeLock(home);
    expect(JSON.parse(readFileSync(join(home, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    const err = (() => {
      try {
        acquireHomeLock(home);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(HomeInUse);
    expect((err as HomeInUse).code).toBe('home_in_use');
    expect((err as Error).message).toMatch(new RegExp(`another launcher runs on ${home} \\(pid ${process.pid},.*kill ${process.pid}.*--home`));
    lock.release();
    expect(existsSync(join(home, LOCK_FILE))).toBe(false);
    lock = acquireHomeLock(home);
    expect(lock.tookOver).toBeUndefined();
  });

  it('a lock whose launcher is gone (kill -9) is taken over, and the nats-server it left on the store is stopped', async () => {
    const leftover = spawn('sleep', ['60'], { stdio: 'ignore' });
    const natsPid = leftover.pid as number;
    const stale = { pid: deadPid(), started_at: '2026-01-01T00:00:00.000Z', nats_pid: natsPid, nats_proc_start: procStart(natsPid) };
    writeFileSync(join(home, LOCK_FILE), JSON.stringify(stale));
    // a sleep stands in for the nats-server here; the real check reads its command line (below)
    lock = acquireHomeLock(home, { isLeftoverNats: (pid) => pid === natsPid });
    expect(lock.tookOver).toMatchObject({ pid: stale.pid });
    expect(lock.stoppedNats).toBe(natsPid);
    await waitFor(() => leftover.exitCode !== null || leftover.signalCode !== null, { timeoutMs: 5000, what: 'the leftover stopped' });
    expect(JSON.parse(readFileSync(join(home, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('a live pid that is another process than the one that wrote the lock (pid reuse) is stale too; an unreadable old lock as well', () => {
    writeFileSync(join(home, LOCK_FILE), JSON.stringify({ pid: process.pid, proc_start: '1', started_at: 'x' }));
    expect(sameProcessAlive(process.pid, '1')).toBe(false);
    lock = acquireHomeLock(home);
    expect(lock.tookOver).toMatchObject({ proc_start: '1' });
    lock.release();
    writeFileSync(join(home, LOCK_FILE), '{"pid": 12');
    const old = new Date(Date.now() - 60_000);
    spawnSync('touch', ['-d', old.toISOString(), join(home, LOCK_FILE)]);
    lock = acquireHomeLock(home);
    expect(lock.tookOver).toBeUndefined();
    expect(JSON.parse(readFileSync(join(home, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('recordNats writes the server pid into the lock; release leaves a lock that is not ours', () => {
    lock = acquireHomeLock(home);
    lock.recordNats(process.pid);
    expect(JSON.parse(readFileSync(join(home, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, nats_pid: process.pid });
    writeFileSync(join(home, LOCK_FILE), JSON.stringify({ pid: 1, started_at: 'x' }));
    lock.release();
    expect(existsSync(join(home, LOCK_FILE))).toBe(true);
  });

  it('a lock naming a process that is not a nats-server on this store stops nothing (a lock file is data, not an order)', () => {
    const bystander = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = bystander.pid as number;
    try {
      writeFileSync(join(home, LOCK_FILE), JSON.stringify({ pid: deadPid(), started_at: 'x', nats_pid: pid, nats_proc_start: procStart(pid) }));
      lock = acquireHomeLock(home);
      expect(lock.tookOver).toMatchObject({ nats_pid: pid });
      expect(lock.stoppedNats).toBeUndefined();
      expect(sameProcessAlive(pid, procStart(pid))).toBe(true);
      expect(isNatsServerOn(pid, join(home, 'nats'))).toBe(false);
    } finally {
      bystander.kill('SIGKILL');
    }
  });

  it('a home or a lock of another user is refused (home_not_ours), and nothing in it is acted on', () => {
    // the tests run as root (CI does): chown makes the files another user's
    const other = mkdtempSync(join(tmpdir(), 'esp-lock-other-'));
    try {
      writeFileSync(join(other, LOCK_FILE), JSON.stringify({ pid: deadPid(), started_at: 'x' }));
      chownSync(join(other, LOCK_FILE), 65534, 65534);
      expect(() => acquireHomeLock(other)).toThrow(HomeNotOurs);
      expect(existsSync(join(other, LOCK_FILE))).toBe(true);
      rmSync(join(other, LOCK_FILE));
      chownSync(other, 65534, 65534);
      expect(() => acquireHomeLock(other)).toThrow(/belongs to uid 65534.*\[home_not_ours\]/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
