import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome, cliStack, homeLine, optionValue, STACK_HELP, userCwd, waitForNatsMs } from './cli-stack';

describe('cliStack: the home, the stack and the user directory of a command line', () => {
  let dir: string;
  let home: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'esp-cli-stack-'));
    home = join(dir, 'h');
    mkdirSync(join(home, 'nats-auth'), { recursive: true });
    writeFileSync(join(home, 'stack.json'), JSON.stringify({ nats: 'nats://127.0.0.1:40001' }));
    writeFileSync(join(home, 'nats-auth', 'client.env'), 'NATS_USER=client\nNATS_PASSWORD=pw\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the user directory is $INIT_CWD (npm run), else the working directory', () => {
    expect(userCwd({ INIT_CWD: dir })).toBe(dir);
    expect(userCwd({})).toBe(process.cwd());
    expect(userCwd({ INIT_CWD: join(dir, 'gone') })).toBe(process.cwd());
    // only for the script npm runs: a process that inherits $INIT_CWD from `npx vitest` works where it was started
    expect(userCwd({ INIT_CWD: dir, npm_lifecycle_event: 'feed' }, 'feed')).toBe(dir);
    expect(userCwd({ INIT_CWD: dir, npm_lifecycle_event: 'npx' }, 'feed')).toBe(process.cwd());
  });

  it('--home and $ESP_HOME alike, relative to the user directory; the default is .esp where the command runs', () => {
    expect(cliHome(['--home', 'h'], { INIT_CWD: dir })).toEqual({ home, from: '--home', cwd: dir });
    expect(cliHome(['--home=h'], { INIT_CWD: dir })).toMatchObject({ home, from: '--home' });
    expect(cliHome([], { INIT_CWD: dir, ESP_HOME: 'h' })).toEqual({ home, from: '$ESP_HOME', cwd: dir });
    expect(cliHome(['--home', home], { INIT_CWD: '/', ESP_HOME: 'elsewhere' })).toMatchObject({ home, from: '--home' });
    expect(cliHome([], { INIT_CWD: dir })).toEqual({ home: resolve('.esp'), from: 'default', cwd: dir });
    expect(optionValue(['x', '--', '--home', 'y'], 'home')).toBeUndefined();
  });

  it('a stack in the home: its server and its credentials for that server', () => {
    const s = cliStack(['--home', 'h'], { INIT_CWD: dir }, 'client');
    expect(s).toMatchObject({ kind: 'stack', home, from: '--home', natsFrom: 'stack.json', stackNats: 'nats://127.0.0.1:40001' });
    if (s.kind !== 'stack') throw new Error('no stack');
    expect(s.env).toMatchObject({ NATS_URL: 'nats://127.0.0.1:40001', NATS_USER: 'client', NATS_PASSWORD: 'pw' });
    expect(homeLine(s, ['nats://127.0.0.1:40001'])).toBe(`home ${home} (--home); its stack at nats://127.0.0.1:40001`);
  });

  it('no stack, no --nats, no $NATS_URL: no server at all (never a fallback to 4222), and a message that says what to do', () => {
    const s = cliStack([], { INIT_CWD: dir, ESP_HOME: 'none' }, 'client');
    expect(s.kind).toBe('no-stack');
    if (s.kind !== 'no-stack') return;
    expect(s.message).toContain(join(dir, 'none'));
    expect(s.message).toMatch(/npm start/);
    expect(s.message).toMatch(/--home/);
    expect(s.message).toMatch(/--nats/);
    expect(s.message).not.toMatch(/connecting to/);
    // told where: a server named on the command line or in the environment is used, without credentials of a stack
    const told = cliStack(['--nats', 'nats://127.0.0.1:4222'], { INIT_CWD: dir, ESP_HOME: 'none' }, 'client');
    expect(told).toMatchObject({ kind: 'stack', natsFrom: '--nats' });
    expect(cliStack([], { INIT_CWD: dir, ESP_HOME: 'none', NATS_URL: 'nats://127.0.0.1:4222' }, 'client')).toMatchObject({ kind: 'stack', natsFrom: '$NATS_URL' });
  });

  it('credential files named in the environment are relative to the user directory', () => {
    const s = cliStack(['--nats', 'nats://x:1'], { INIT_CWD: dir, NATS_CREDS: 'me.creds', NATS_CA: '/abs/ca.pem' }, 'client');
    if (s.kind !== 'stack') throw new Error('no stack');
    expect(s.env['NATS_CREDS']).toBe(join(dir, 'me.creds'));
    expect(s.env['NATS_CA']).toBe('/abs/ca.pem');
  });

  it('--wait-for-nats: 30 s by default, 0 for not at all; the help documents home, ESP_HOME, INIT_CWD and the wait', () => {
    expect(waitForNatsMs(undefined)).toBe(30_000);
    expect(waitForNatsMs('0')).toBe(0);
    expect(waitForNatsMs('2.5')).toBe(2500);
    expect(waitForNatsMs('soon')).toMatch(/--wait-for-nats must be/);
    for (const s of ['--home', '$ESP_HOME', '$INIT_CWD', '--wait-for-nats', '(default: 30', 'never falls back']) expect(STACK_HELP).toContain(s);
  });
});
