import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { waitFor } from './wait-for';

describe('process guard', () => {
  it('a guarded process dies with the test process that started it, even on SIGKILL', async () => {
    // a throwaway node process starts a guarded `sleep`, prints its pid, then is SIGKILLed
    const script = `
      import { spawnGuarded } from './libs/testing/src/process-guard.ts';
      const g = spawnGuarded('sleep', ['300']);
      console.log('guarded-pid ' + (await g.pid));
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('../../../', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const pid = await new Promise<number>((resolve) =>
      parent.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /guarded-pid (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      }),
    );
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 0);
    parent.kill('SIGKILL');
    await waitFor(() => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    }, { what: 'guarded process to die', timeoutMs: 5000 });
  });
});
