/**
 * A packet capture of one TCP port on loopback with tshark, written to a file and searched for bytes afterwards.
 * Capturing on loopback needs root (or dumpcap's capabilities); `captureProblem` says what is missing.
 *
 *   const cap = await Capture.start(4222, '/tmp/nats.pcapng');
 *   ...traffic...
 *   await cap.stop();
 *   captureContains('/tmp/nats.pcapng', 'marker');   // the raw frames, TLS records or clear text
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const TSHARK_INSTALL = 'DEBIAN_FRONTEND=noninteractive apt-get install -y tshark';

/** tshark failed to start capturing, or to stop. */
export class CaptureError extends Error {
  override name = 'CaptureError';
  readonly code = 'capture';
}

/** Why this machine cannot capture on loopback (no tshark, not root), or undefined when it can. */
export function captureProblem(): string | undefined {
  if (spawnSync('tshark', ['--version'], { stdio: 'ignore', timeout: 10_000 }).status !== 0) return `tshark is not installed (${TSHARK_INSTALL})`;
  if (process.getuid?.() !== 0) return 'capturing on loopback needs root';
  return undefined;
}

export class Capture {
  private constructor(
    private readonly proc: ChildProcess,
    private readonly exited: Promise<number | null>,
    private readonly stderr: () => string,
  ) {}

  /** Starts capturing TCP port `port` on the loopback interface into `file`; resolves once tshark captures. */
  static async start(port: number, file: string, timeoutMs = 20_000): Promise<Capture> {
    const proc = spawn('tshark', ['-i', 'lo', '-f', `tcp port ${port}`, '-w', file, '-q'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const capturing = new Promise<void>((resolve, reject) => {
      proc.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
        // tshark says so on stderr once dumpcap has opened the interface
        if (/Capturing on/.test(stderr)) resolve();
      });
      proc.once('error', (err) => reject(new CaptureError(`tshark did not start: ${err.message}`, { cause: err })));
      void exited.then((code) => reject(new CaptureError(`tshark exited (${code}) before capturing: ${stderr.trim()}`)));
      setTimeout(() => reject(new CaptureError(`tshark not capturing within ${timeoutMs} ms: ${stderr.trim()}`)), timeoutMs).unref();
    });
    try {
      await capturing;
    } catch (err) {
      proc.kill('SIGKILL');
      throw err;
    }
    return new Capture(proc, exited, () => stderr);
  }

  /** Stops the capture; the file is complete when this resolves. */
  async stop(): Promise<void> {
    this.proc.kill('SIGINT');
    const code = await this.exited;
    if (code !== 0) throw new CaptureError(`tshark exited with ${code}: ${this.stderr().trim()}`);
  }
}

/**
 * The TCP payloads of the capture that tshark does not read as TLS (two passes, so a TLS record split over segments
 * counts as TLS): on a TLS-only port, just the server's greeting in clear (NATS sends INFO before the handshake).
 */
export function clearTextPayloads(file: string): Buffer[] {
  const r = spawnSync('tshark', ['-2', '-r', file, '-Y', 'tcp.len > 0 && !tls && !tcp.reassembled_in', '-T', 'fields', '-e', 'tcp.payload'], { encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new CaptureError(`tshark could not read ${file}: ${r.stderr.trim()}`);
  return r.stdout
    .split('\n')
    .map((l) => l.trim().replace(/:/g, ''))
    .filter(Boolean)
    .map((hex) => Buffer.from(hex, 'hex'));
}

/** Whether the capture file holds `text` (UTF-8) anywhere in its frames. */
export function captureContains(file: string, text: string): boolean {
  return readFileSync(file).includes(Buffer.from(text, 'utf8'));
}
