/**
 * `docker compose` for one project, as child processes: the smoke test's only way to the stack besides NATS.
 */
import { spawn } from 'node:child_process';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; echo?: boolean }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      if (opts.echo) process.stderr.write(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      if (opts.echo) process.stderr.write(b);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

export class Compose {
  constructor(
    private readonly project: string,
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** docker compose -p <project> <args>; throws with the command's own error output when it fails */
  async do(args: string[], opts: { echo?: boolean } = {}): Promise<string> {
    const r = await run('docker', ['compose', '-p', this.project, ...args], { cwd: this.cwd, env: this.env, echo: opts.echo });
    if (r.code !== 0) throw new Error(`docker compose ${args.join(' ')} exited ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-15).join('\n')}`);
    return r.stdout;
  }

  logs(service: string): Promise<string> {
    return this.do(['logs', '--no-color', '--no-log-prefix', service]);
  }
}
