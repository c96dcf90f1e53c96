/**
 * Is TLS really on? Runs the stack as `npm start` does (the launcher, its own home), captures its NATS port on
 * loopback while `npm run feed` feeds documents that carry a marker and `npm run search` looks for it, and reports
 * whether the marker appears anywhere in the capture. On the secured bus it must not; with `--insecure` (the
 * control: an open nats-server of our own, never the shared one on 4222) it must, or the capture proves nothing.
 *
 *   const run = await captureFeed({ insecure: false, marker: 'tlsmark0123' });
 *   run.markerSeen   // false: every byte on the NATS port was inside TLS
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NatsServer } from '@esp/testing';
import { Capture, captureContains, clearTextPayloads } from './capture';

const ROOT = new URL('../../../', import.meta.url).pathname;
const run = promisify(execFile);
const DOCUMENTS = 20;
/** The start of a NATS protocol message from client or server, but the INFO greeting that precedes TLS. */
const NATS_VERB = /^(CONNECT|PUB|HPUB|SUB|UNSUB|MSG|HMSG|PING|PONG|\+OK|-ERR)[ \r]/;

/** The stack did not come up, or the feed or the search did not do what they should. */
export class StackRunError extends Error {
  override name = 'StackRunError';
  readonly code = 'stack_run';
}

export interface CaptureFeedOptions {
  insecure: boolean;
  /** Text every document carries (letters and digits: one token for the search). */
  marker: string;
  /** Keep the capture file here (default: removed with the run's home). */
  keepCaptureAs?: string;
  log?: (line: string) => void;
}

export interface CaptureRun {
  mode: 'secured' | 'insecure';
  natsUrl: string;
  captureBytes: number;
  markerSeen: boolean;
  /** Payloads tshark does not read as TLS. */
  clearFrames: number;
  /**
   * Of these, the ones that are NATS protocol other than the server's INFO greeting (CONNECT, PUB, MSG...), their
   * first bytes. The rest are pieces of TLS records of connections opened before the capture began, which tshark
   * cannot always tell as TLS.
   */
  natsInClear: string[];
  /** Feeding and searching, under capture. */
  feedMs: number;
  totalMs: number;
}

function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ESP_HOME: home, VITEST: '' };
  for (const k of ['NATS_URL', 'NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_NKEY', 'NATS_CREDS', 'NATS_CA', 'NATS_CERT', 'NATS_KEY']) delete env[k];
  return env;
}

const tsx = (entry: string, args: string[], env: NodeJS.ProcessEnv) => run(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 90_000 });

/** Starts the launcher in its own process group; resolves once it says the stack is up. */
async function startLauncher(home: string, env: NodeJS.ProcessEnv, insecure: boolean): Promise<{ stop(): Promise<void> }> {
  const args = ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home, '--crawl-nodes', '0', ...(insecure ? ['--insecure'] : [])];
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  const exited = new Promise<number | null>((r) => proc.once('exit', r));
  const stop = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    process.kill(-(proc.pid as number), 'SIGINT');
    const timer = setTimeout(() => process.kill(-(proc.pid as number), 'SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StackRunError(`the launcher was not ready within 120 s: ${stderr.slice(-1500)}`)), 120_000);
    proc.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-20_000);
      if (stderr.includes('Ctrl-C stops everything')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new StackRunError(`the launcher exited (${code}) before it was ready: ${stderr.slice(-1500)}`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { stop };
}

export async function captureFeed(o: CaptureFeedOptions): Promise<CaptureRun> {
  const mode = o.insecure ? 'insecure' : 'secured';
  const say = o.log ?? (() => undefined);
  const t0 = performance.now();
  const home = mkdtempSync(join(tmpdir(), `esp-tls-capture-${mode}-`));
  const env = cleanEnv(home);
  // the control runs on an open server of its own: --insecure alone would use a server already on 4222
  const open = o.insecure ? await NatsServer.start() : undefined;
  if (open) env['NATS_URL'] = open.url;
  let launcher: { stop(): Promise<void> } | undefined;
  try {
    launcher = await startLauncher(home, env, o.insecure);
    const natsUrl = (JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as { nats: string }).nats;
    const port = Number(new URL(natsUrl.replace(/^nats:|^tls:/, 'http:')).port);
    say(`${mode}: stack up at ${natsUrl}; capturing tcp port ${port} on lo`);
    const docs = join(home, 'docs');
    mkdirSync(docs);
    for (let i = 0; i < DOCUMENTS; i++) writeFileSync(join(docs, `doc-${i}.txt`), `document ${i} says ${o.marker} and ${o.marker} again, a line of plain text.\n`);
    const file = o.keepCaptureAs ?? join(home, 'nats.pcapng');
    const capture = await Capture.start(port, file);
    const f0 = performance.now();
    let feedMs: number;
    try {
      const feed = await tsx('apps/feed/src/main.ts', ['--collection', 'default', docs], env);
      if (!new RegExp(`${DOCUMENTS} completed, 0 failed`).test(feed.stdout)) throw new StackRunError(`${mode}: the feed did not complete: ${feed.stdout}${feed.stderr}`);
      const search = await tsx('tools/search-cli/src/main.ts', [o.marker, '--collection', 'default'], env);
      if (!search.stdout.includes('doc-')) throw new StackRunError(`${mode}: the search found nothing: ${search.stdout}${search.stderr}`);
      feedMs = Math.round(performance.now() - f0);
    } finally {
      await capture.stop();
    }
    const clear = clearTextPayloads(file);
    const natsInClear = clear.map((p) => p.subarray(0, 60).toString('latin1')).filter((p) => NATS_VERB.test(p));
    const run: CaptureRun = { mode, natsUrl, captureBytes: statSync(file).size, markerSeen: captureContains(file, o.marker), clearFrames: clear.length, natsInClear, feedMs, totalMs: 0 };
    run.totalMs = Math.round(performance.now() - t0);
    say(`${mode}: ${DOCUMENTS} documents fed and found; ${run.captureBytes} bytes captured, ${clear.length} payloads not TLS (${natsInClear.length} of them NATS protocol but INFO); marker ${run.markerSeen ? 'SEEN' : 'not seen'}`);
    return run;
  } finally {
    await launcher?.stop();
    await open?.cleanup();
    rmSync(home, { recursive: true, force: true });
  }
}
