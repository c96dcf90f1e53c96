import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/stopper.ts', import.meta.url));

/** Runs the fixture, sends the signals once it is ready (the second 50 ms after the first), gives its lines and exit code. */
async function run(args: string[], signals: NodeJS.Signals[]): Promise<{ code: number | null; lines: Record<string, unknown>[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Record<string, unknown>[] = [];
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const l = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      buf = buf.slice(nl + 1);
      lines.push(l);
      if (l['msg'] === 'ready') signals.forEach((s, i) => setTimeout(() => child.kill(s), i * 50));
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  return { code, lines };
}

describe('stopOnSignals', () => {
  it('stops once on the first signal, logs it, exits 0', async () => {
    const { code, lines } = await run([], ['SIGTERM', 'SIGINT', 'SIGTERM']);
    expect(code).toBe(0);
    expect(lines.filter((l) => l['msg'] === 'stopping: test')).toEqual([{ signal: 'SIGTERM', pid: expect.any(Number), msg: 'stopping: test' }]);
    expect(lines.filter((l) => l['msg'] === 'stop ran')).toEqual([{ signal: 'SIGTERM', msg: 'stop ran' }]);
  });

  it('exits 1 and logs the error when the stop fails', async () => {
    const { code, lines } = await run(['--fail'], ['SIGINT']);
    expect(code).toBe(1);
    expect(lines.filter((l) => l['msg'] === 'stop ran')).toHaveLength(1);
    expect(lines).toContainEqual({ err: 'disk on fire', msg: 'error while stopping' });
  });
});
