/**
 * The check as `npm test` runs it: `node --import tsx tools/prerequisites/src/main.ts` from the workspace root, with
 * the environment a machine would give it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { missingLine, missingPrerequisites, type Prerequisite } from './prerequisites';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ENTRY = 'tools/prerequisites/src/main.ts';
const dir = mkdtempSync(join(tmpdir(), 'esp-prerequisites-'));
const emptyPath = join(dir, 'empty');
const fakeNats = join(dir, 'nats-server');
writeFileSync(fakeNats, '#!/bin/sh\n');
chmodSync(fakeNats, 0o755);
const notExecutable = join(dir, 'not-executable');
writeFileSync(notExecutable, '');
// stand-ins for /usr/bin/python3: one whose `import zmq` works, one whose does not
const pythonWithZmq = join(dir, 'python-with-zmq');
writeFileSync(pythonWithZmq, '#!/bin/sh\nexit 0\n');
chmodSync(pythonWithZmq, 0o755);
const pythonWithoutZmq = join(dir, 'python-without-zmq');
writeFileSync(pythonWithoutZmq, '#!/bin/sh\necho "ModuleNotFoundError: No module named zmq" >&2\nexit 1\n');
chmodSync(pythonWithoutZmq, 0o755);

const fakeTshark = join(dir, 'tshark');
writeFileSync(fakeTshark, '#!/bin/sh\nexit 0\n');
chmodSync(fakeTshark, 0o755);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(env: NodeJS.ProcessEnv): { status: number | null; lines: string[] } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', ENTRY], { cwd: ROOT, env: { ESP_TEST_TSHARK: fakeTshark, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, lines: r.stderr.split('\n').filter(Boolean) };
}

describe('check-prerequisites as npm test runs it', () => {
  it('no nats-server - exits 1 with one line naming nats-server and how to install it', () => {
    const { status, lines } = check({ PATH: emptyPath, NATS_SERVER_BIN: notExecutable, ESP_TEST_PYTHON: pythonWithZmq });
    expect(status).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^npm test needs nats-server \(apt-get install -y nats-server\)/);
  });

  it('no tshark - the one line names tshark and how to install it', () => {
    const { status, lines } = check({ PATH: emptyPath, NATS_SERVER_BIN: fakeNats, ESP_TEST_PYTHON: pythonWithZmq, ESP_TEST_TSHARK: notExecutable });
    expect(status).toBe(1);
    expect(lines).toEqual(['npm test needs tshark (apt-get install -y tshark)']);
  });

  it('no python3-zmq - the one line names python3-zmq and how to install it', () => {
    const { status, lines } = check({ PATH: emptyPath, NATS_SERVER_BIN: fakeNats, ESP_TEST_PYTHON: pythonWithoutZmq });
    expect(status).toBe(1);
    expect(lines).toEqual(['npm test needs python3-zmq for /usr/bin/python3 (apt-get install -y python3-zmq)']);
  });

  it('everything present - exits 0 and says nothing', () => {
    const { status, lines } = check({ PATH: emptyPath, NATS_SERVER_BIN: fakeNats, ESP_TEST_PYTHON: pythonWithZmq });
    expect(status).toBe(0);
    expect(lines).toEqual([]);
  });
});

describe('missingPrerequisites', () => {
  const present = (name: string): Prerequisite => ({ name, install: `apt-get install -y ${name}`, present: () => true });
  const absent = (name: string): Prerequisite => ({ name, install: `apt-get install -y ${name}`, present: () => false });

  it('everything present - nothing missing, no line', () => {
    const missing = missingPrerequisites({}, [present('a'), present('b')]);
    expect(missing).toEqual([]);
    expect(missingLine(missing)).toBeUndefined();
  });

  it('two missing - one line naming both in order', () => {
    const missing = missingPrerequisites({}, [absent('nats-server'), present('x'), absent('python3-zmq')]);
    expect(missingLine(missing)).toBe(
      'npm test needs nats-server (apt-get install -y nats-server) and python3-zmq (apt-get install -y python3-zmq)',
    );
  });

  it('nats-server - NATS_SERVER_BIN that is not executable counts as missing, an executable one as present', () => {
    const nats = (env: NodeJS.ProcessEnv) => missingPrerequisites(env).some((p) => p.name === 'nats-server');
    expect(nats({ PATH: emptyPath, NATS_SERVER_BIN: notExecutable })).toBe(true);
    expect(nats({ PATH: emptyPath, NATS_SERVER_BIN: fakeNats })).toBe(false);
    expect(nats({ PATH: dir })).toBe(false);
  });
});
