import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackEnv } from './stack-env';

describe('stackEnv', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'esp-stack-env-'));
    mkdirSync(join(home, 'nats-auth'));
    writeFileSync(join(home, 'stack.json'), JSON.stringify({ nats: 'nats://127.0.0.1:40000' }));
    writeFileSync(join(home, 'nats-auth', 'client.env'), 'NATS_USER=client\nNATS_PASSWORD=s3cret=x\nNATS_CA=/h/server.pem\n');
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('the stack\'s NATS URL and identity when the environment has none', () => {
    expect(stackEnv({ ESP_HOME: home }, 'client')).toMatchObject({ NATS_URL: 'nats://127.0.0.1:40000', NATS_USER: 'client', NATS_PASSWORD: 's3cret=x', NATS_CA: '/h/server.pem' });
  });

  it('what the environment gives wins, group by group', () => {
    const env = stackEnv({ ESP_HOME: home, NATS_URL: 'nats://elsewhere:4222', NATS_CREDS: '/my.creds' }, 'client');
    expect(env).toMatchObject({ NATS_URL: 'nats://elsewhere:4222', NATS_CREDS: '/my.creds' });
    expect(env['NATS_USER']).toBeUndefined();
  });

  it('the stack\'s identity goes to the stack\'s server only', () => {
    expect(stackEnv({ ESP_HOME: home, NATS_URL: 'nats://127.0.0.1:40000' }, 'client')['NATS_USER']).toBe('client');
    expect(stackEnv({ ESP_HOME: home, NATS_URL: 'nats://test-server:4222' }, 'client')['NATS_USER']).toBeUndefined();
    expect(stackEnv({ ESP_HOME: home }, 'client', { servers: ['nats://other:4222'] })['NATS_USER']).toBeUndefined();
    expect(stackEnv({ ESP_HOME: home }, 'client', { servers: ['nats://127.0.0.1:40000'] })['NATS_USER']).toBe('client');
    expect(stackEnv({ ESP_HOME: home }, 'client', { argv: ['-c', 'x', '--nats', 'nats://other:4222'] })['NATS_USER']).toBeUndefined();
    expect(stackEnv({ ESP_HOME: home }, 'client', { argv: ['--nats=nats://127.0.0.1:40000', 'dir'] })['NATS_USER']).toBe('client');
  });

  it('no stack in the home: the environment as it is', () => {
    expect(stackEnv({ ESP_HOME: join(home, 'none'), X: '1' }, 'admin')).toEqual({ ESP_HOME: join(home, 'none'), X: '1' });
  });
});
