import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/gc-workload.ts', import.meta.url));

/** Runs the workload with V8's GC tracing; counts incremental marking starts and full collections in what it printed. */
async function run(mode: 'on' | 'off'): Promise<{ code: number | null; starts: number; fullGcs: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--trace-gc', '--trace-incremental-marking', fixture, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  return { code, starts: out.match(/\[IncrementalMarking\] Start \(/g)?.length ?? 0, fullGcs: out.match(/Mark-Compact/g)?.length ?? 0 };
}

describe('useNonIncrementalMarking', () => {
  it('a heap that grows: by default V8 marks incrementally; after the call it collects the old generation in single pauses only', async () => {
    const normal = await run('off');
    const full = await run('on');
    expect(normal.code).toBe(0);
    expect(full.code).toBe(0);
    expect(normal.starts).toBeGreaterThan(0);
    expect(full.starts).toBe(0);
    // the old generation is still collected
    expect(full.fullGcs).toBeGreaterThan(0);
  });
});
