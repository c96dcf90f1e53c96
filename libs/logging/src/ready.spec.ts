import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';

const READY = new URL('./ready.ts', import.meta.url).pathname;
const LOGGER = new URL('./logger.ts', import.meta.url).pathname;

/** A process that announces it is ready with LOG_LEVEL=silent: what its fd 4 and its stdout carry. */
function child(env: Record<string, string>): Promise<{ channel: string; stdout: string; code: number | null }> {
  const script = `import { announceReady } from ${JSON.stringify(READY)}; import { createLogger } from ${JSON.stringify(LOGGER)};
announceReady(createLogger('t'), { xmlrpc_url: 'http://h:1/RPC2' });
process.stdout.write('env ' + String(process.env.ESP_READY_FD) + '\\n');`;
  const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'inherit', 'ignore', 'pipe'] });
  let channel = '';
  let stdout = '';
  (p.stdio[4] as Readable).on('data', (d: Buffer) => (channel += d.toString()));
  p.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  return new Promise((resolve) => p.once('close', (code) => resolve({ channel, stdout, code })));
}

describe('announceReady', () => {
  it('writes the readiness line on ESP_READY_FD whatever the log level, and takes the variable out of the environment', async () => {
    const r = await child({ ESP_READY_FD: '4' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.channel)).toMatchObject({ ready: true, xmlrpc_url: 'http://h:1/RPC2' });
    expect(r.stdout).toBe('env undefined\n'); // no log line (silent), and children would not inherit the name
  }, 60_000);

  it('without ESP_READY_FD: nothing on the descriptor', async () => {
    const r = await child({});
    expect(r.code).toBe(0);
    expect(r.channel).toBe('');
  }, 60_000);
});
