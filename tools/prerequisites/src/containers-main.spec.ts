/**
 * The check as `npm run test:containers` runs it, against an engine that is not there: no Docker needed.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('container engine check as npm run test:containers runs it', () => {
  it('no engine at DOCKER_HOST - exits 1 with one line saying what is wrong and how to fix it', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'tools/prerequisites/src/containers-main.ts'], {
      cwd: ROOT,
      env: { ...process.env, ESP_TEST_NATS: 'container', DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([
      'ESP_TEST_NATS=container needs a Docker engine, and none answers at DOCKER_HOST=unix:///nonexistent/docker.sock (ENOENT): ' +
        'start Docker (or point DOCKER_HOST at a running engine), or unset ESP_TEST_NATS to use the nats-server binary',
    ]);
  });
});
