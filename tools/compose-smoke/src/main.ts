/**
 * `npm run compose-smoke`: the docker compose stack, end to end, as a user runs it.
 *
 *   1. docker compose up --build --wait        every service healthy
 *   2. the secured bus                         no credentials, or a wrong password: refused; the client identity of
 *                                              the nats-auth volume connects (TLS, checked against its CA)
 *   3. feed the demo corpus from the host      as the client: good documents completed, broken ones failed
 *   4. search it                               hits
 *   5. feed a larger copy and SIGKILL the master content distributor in the middle: the backup becomes master and
 *      every document still ends completed, once
 *   6. docker compose stop                     every service (the killed one aside) exits 0 on SIGTERM
 *   7. docker compose down -v                  (always, unless --keep)
 *
 * Exit 0 when all of it held; 1 with the reasons otherwise. The last line is `compose_smoke=passed|failed`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { NATS_SECURITY_ENV, type NatsSecurity } from '@esp/cli-options';
import { Middleware } from '@esp/middleware';
import { busAccessProblems, clientIdentity } from './bus-access';
import { Compose, run } from './compose';
import { copyCorpus } from './corpus-copies';
import { lastRole } from './distributor-role';
import { sessionsCreated } from './session-log';

const ROOT = new URL('../../../', import.meta.url).pathname;
const COLLECTION = 'default';
const DISTRIBUTORS = ['content-distributor', 'content-distributor-2'];
/** The master is killed at most this long after the second feed's session opened. */
const KILL_AFTER_MS = 3000;

const HELP = `Usage: npm run compose-smoke [-- options]

Builds and starts the docker compose stack, checks its NATS refuses a client without credentials, feeds and searches
the demo corpus from this host as the feed client (credentials from the nats-auth volume), kills the master
content distributor in the middle of a second feed, checks the backup took over and every document has its final
status, and takes the stack down.

Options:
  --project <name>   compose project name (default: esp-smoke)
  --nats-port <n>    host port for the stack's NATS (default: 14222; NATS_PORT in docker-compose.yml; the config
                     server and node controller get CONFIG_SERVER_PORT / NODE_CONTROLLER_PORT, default 16105 / 16115)
  --copies <n>       copies of the demo corpus fed during the kill (default: 30, about 9,000 documents)
  --no-build         do not build the image (use the one already built)
  --keep             leave the stack running at the end
  -h, --help         show this help

Environment: NODE_IMAGE and NATS_IMAGE choose the base images (see docker-compose.yml); CI sets the locally built
esp-local/node:20 and esp-local/nats:2.9.
`;

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        project: { type: 'string', default: 'esp-smoke' },
        'nats-port': { type: 'string', default: '14222' },
        copies: { type: 'string', default: '30' },
        'no-build': { type: 'boolean', default: false },
        keep: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`compose-smoke: ${(err as Error).message}\nTry --help.\n`);
    process.exit(2);
  }
})();
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const natsPort = Number(values['nats-port']);
const copies = Number(values.copies);
if (!Number.isInteger(natsPort) || natsPort <= 0 || !Number.isInteger(copies) || copies <= 0) {
  process.stderr.write('compose-smoke: --nats-port and --copies take positive integers\n');
  process.exit(2);
}
const natsUrl = `nats://127.0.0.1:${natsPort}`;
// host ports of their own, so a stack or a nats-server already on the default ports is left alone
const compose = new Compose(values.project, ROOT, {
  ...process.env,
  NATS_PORT: String(natsPort),
  CONFIG_SERVER_PORT: process.env['CONFIG_SERVER_PORT'] ?? '16105',
  NODE_CONTROLLER_PORT: process.env['NODE_CONTROLLER_PORT'] ?? '16115',
});
const say = (line: string) => process.stderr.write(`[compose-smoke] ${line}\n`);
const problems: string[] = [];
const timings: [string, number][] = [];
const timed = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
  const t0 = Date.now();
  try {
    return await fn();
  } finally {
    timings.push([what, Date.now() - t0]);
  }
};

interface FeedReport {
  documents: number;
  completed: number;
  failed: number;
  unfinished: number;
  distributor_failovers: number;
  input_errors: string[];
  failures: { id: string; error?: { type: string; description: string } }[];
}

/** The feed client's identity, copied from the nats-auth volume once the stack is up. */
let client: { security: NatsSecurity; env: Record<string, string> } | undefined;
/** This process's environment without NATS credentials of its own: the feed gets the client's and no other. */
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !NATS_SECURITY_ENV.includes(k)));

/** The feed CLI from this host, as a user runs it, as the feed client; resolves with its report once it exits. */
function feed(dir: string, reportFile: string, extra: string[] = [], onStart?: (running: () => boolean) => void): Promise<{ code: number; report?: FeedReport }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/feed/src/main.ts', '--collection', COLLECTION, '--quiet', '--timeout', '180', '--report', reportFile, ...extra, dir], {
    cwd: ROOT,
    env: { ...baseEnv, ...client?.env, NATS_URL: natsUrl },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  onStart?.(() => child.exitCode === null && child.signalCode === null);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      let report: FeedReport | undefined;
      try {
        report = JSON.parse(readFileSync(reportFile, 'utf8')) as FeedReport;
      } catch {
        /* no report: counted as a problem by the caller */
      }
      resolve({ code: code ?? 1, report });
    }),
  );
}

async function searchTotal(query: string): Promise<number> {
  const mw = await Middleware.connect({ name: 'compose-smoke', servers: natsUrl, security: client?.security ?? {}, logger: createLogger('compose-smoke', {}, { level: 'error', destination: process.stderr }) });
  try {
    const { proxy } = await mw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    return (await proxy.search(COLLECTION, query, 1, 0)).total;
  } finally {
    await mw.close();
  }
}

async function roles(): Promise<Map<string, ReturnType<typeof lastRole>>> {
  const out = new Map<string, ReturnType<typeof lastRole>>();
  for (const s of DISTRIBUTORS) out.set(s, lastRole(await compose.logs(s)));
  return out;
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const work = mkdtempSync(join(tmpdir(), 'compose-smoke-'));
let exitCode = 0;
try {
  // ---- 1. up ----
  say(`docker compose -p ${values.project} up${values['no-build'] ? '' : ' --build'} --wait (NATS on host port ${natsPort})`);
  await timed('up', () => compose.do(['up', '--detach', ...(values['no-build'] ? [] : ['--build']), '--wait', '--wait-timeout', '600'], { echo: true }));

  // ---- 2. the secured bus: closed to strangers, open to the client identity of the nats-auth volume ----
  const clientDir = join(work, 'client');
  await compose.do(['cp', 'nats-auth:/esp/nats-auth/roles/client', clientDir]);
  client = clientIdentity(clientDir);
  const refused = await timed('bus access', () => busAccessProblems(natsUrl, client as { security: NatsSecurity }));
  problems.push(...refused);
  say(`secured bus: ${refused.length ? `${refused.length} problem(s)` : 'a client without credentials or with a wrong password is refused; the client identity connects'}`);

  // ---- 3. feed the demo corpus ----
  const corpus = join(ROOT, 'tools', 'demo', 'corpus');
  const broken = readdirSync(join(corpus, 'broken')).map((f) => `tools/demo/corpus/broken/${f}`).sort();
  say('feeding tools/demo/corpus');
  const first = await timed('feed demo corpus', () => feed('tools/demo/corpus', join(work, 'feed-1.json')));
  if (!first.report) problems.push(`the first feed wrote no report (exit ${first.code})`);
  else {
    const failed = first.report.failures.map((f) => f.id).sort();
    const unexpected = failed.filter((id) => !broken.includes(id));
    if (unexpected.length) problems.push(`documents failed that should not have: ${unexpected.join(', ')}`);
    if (failed.length !== broken.length || unexpected.length) problems.push(`expected exactly the ${broken.length} broken documents to fail, ${failed.length} failed`);
    if (first.report.unfinished) problems.push(`${first.report.unfinished} documents of the first feed got no final status`);
    say(`first feed: ${first.report.completed} completed, ${first.report.failed} failed (${broken.length} broken expected)`);
  }

  // ---- 4. search ----
  const hitsBefore = await timed('search', () => searchTotal('warranty'));
  say(`search "warranty": ${hitsBefore} hits`);
  if (!hitsBefore) problems.push('search for "warranty" found nothing after the first feed');

  // ---- 5. kill the master mid-feed ----
  const before = await roles();
  const masters = DISTRIBUTORS.filter((s) => before.get(s)?.role === 'master');
  if (masters.length !== 1) throw new Error(`expected one master distributor, found ${masters.length} (${JSON.stringify(Object.fromEntries(before))})`);
  const master = masters[0] as string;
  const backup = DISTRIBUTORS.find((s) => s !== master) as string;
  const bigger = join(work, 'corpus');
  const documents = copyCorpus(corpus, bigger, copies);
  say(`feeding ${documents} documents; ${master} (master) is killed with SIGKILL once the first of them are searchable, or ${KILL_AFTER_MS / 1000} s after the feed's session opened`);
  let running: () => boolean = () => false;
  // at most two batches without a final status: when the first documents are searchable, nearly all are still to be
  // sent, however fast the machine (with the default 20 batches a fast stack has sent everything by then)
  const secondStarted = Date.now();
  const second = feed(bigger, join(work, 'feed-2.json'), ['--max-in-flight', '200'], (r) => (running = r));
  // the master places the session on either distributor: only one on the master must fail over
  const { holder, openedAt } = await waitFor("the second feed's session", 60_000, async () => {
    for (const s of DISTRIBUTORS) {
      const created = sessionsCreated(await compose.logs(s)).find((c) => (c.at ?? 0) >= secondStarted - 1000);
      if (created) return { holder: s, openedAt: created.at ?? Date.now() };
    }
    return undefined;
  });
  say(`the second feed's session is on ${holder} (${holder === master ? 'the master: the feed must fail over' : 'the backup: no session failover is expected'})`);
  // mid-feed: the session is open and documents flow (some of this feed are already in the index). The kill does
  // not wait longer than KILL_AFTER_MS after the session opened: an indexer that makes documents searchable late
  // must not let a fast feed end first, and there would be no session failover to see
  await waitFor('the first documents of the second feed in the index, or the kill delay', 120_000, async () =>
    Date.now() - openedAt >= KILL_AFTER_MS || (await searchTotal('warranty')) > hitsBefore ? true : undefined,
  );
  const feedingMs = Date.now() - secondStarted;
  if (!running()) problems.push(`the second feed was over before the kill: raise --copies so the kill lands mid-feed`);
  const killedAt = Date.now();
  await compose.do(['kill', '-s', 'SIGKILL', master]);
  const takeoverMs = await timed('takeover', () =>
    waitFor(`${backup} to become master`, 60_000, async () => {
      const r = lastRole(await compose.logs(backup));
      return r.role === 'master' && (r.at ?? 0) >= killedAt - 1000 ? Date.now() - killedAt : undefined;
    }),
  );
  say(`${master} killed ${feedingMs} ms into the feed; ${backup} is master ${takeoverMs} ms after the kill`);
  const result = await timed('feed during kill', () => second);
  if (!result.report) problems.push(`the second feed wrote no report (exit ${result.code})`);
  else {
    const r = result.report;
    say(`second feed: ${r.documents} documents, ${r.completed} completed, ${r.failed} failed, ${r.unfinished} without a final status; ${r.distributor_failovers} session failover(s)`);
    if (r.documents !== documents) problems.push(`the second feed saw ${r.documents} documents, ${documents} were written`);
    if (r.unfinished) problems.push(`${r.unfinished} documents got no final status after the kill`);
    if (r.failed) problems.push(`${r.failed} documents failed after the kill: ${r.failures.slice(0, 5).map((f) => `${f.id} ${f.error?.type}`).join(', ')}`);
    if (r.completed !== documents) problems.push(`${r.completed} of ${documents} documents completed`);
    if (holder === master && !r.distributor_failovers) problems.push(`the feed's session was on the killed master, yet the feed saw no failover`);
  }
  const hitsAfter = await searchTotal('warranty');
  say(`search "warranty": ${hitsAfter} hits`);
  if (hitsAfter <= hitsBefore) problems.push(`the documents fed during the kill are not searchable ("warranty": ${hitsBefore} hits before, ${hitsAfter} after)`);

  // ---- 6. a graceful stop ----
  if (!values.keep) {
    say('docker compose stop: every service must exit 0 on SIGTERM');
    await timed('stop', () => compose.do(['stop']));
    for (const id of (await compose.do(['ps', '--all', '--quiet'])).split('\n').filter(Boolean)) {
      const r = await run('docker', ['inspect', id, '--format', '{{ index .Config.Labels "com.docker.compose.service" }} {{ .State.ExitCode }}'], { cwd: ROOT });
      const [service, code] = r.stdout.trim().split(' ');
      if (service === master) continue;
      if (code !== '0') problems.push(`${service} exited ${code} on docker compose stop`);
    }
  }
} catch (err) {
  problems.push((err as Error).message);
} finally {
  if (problems.length) {
    const ps = await compose.do(['ps', '--all']).catch((e: Error) => e.message);
    process.stderr.write(`\n${ps}\n`);
  }
  if (!values.keep) {
    say('docker compose down -v');
    await timed('down', () => compose.do(['down', '-v', '--remove-orphans', '--timeout', '60'])).catch((err: Error) => problems.push(`down failed: ${err.message}`));
  }
  rmSync(work, { recursive: true, force: true });
  process.stdout.write(`\ntimings: ${timings.map(([w, ms]) => `${w} ${(ms / 1000).toFixed(1)} s`).join(', ')}\n`);
  if (problems.length) {
    process.stdout.write('\nUNEXPECTED:\n' + problems.map((p) => `  - ${p}\n`).join(''));
    exitCode = 1;
  }
  process.stdout.write(`compose_smoke=${problems.length ? 'failed' : 'passed'}\n`);
}
process.exit(exitCode);
