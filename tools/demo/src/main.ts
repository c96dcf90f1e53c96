/**
 * `npm run demo`: the whole system on this machine in one command.
 *
 *   npm run demo                         # NATS_URL, else a secured nats-server started here (as npm start)
 *   npm run demo -- --help
 *
 * Starts the stack (the launcher, tools/launcher, as a child process) with a fresh state directory, feeds the
 * bundled sample corpus (tools/demo/corpus: licence texts as HTML, XML and plain text, plus a few broken documents)
 * with the feed CLI, runs a few searches, prints a summary, stops the stack and exits 0; 1 when anything unexpected
 * happened (a good document failed, a broken one was accepted, a search found nothing, the stack did not stop).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { natsSecurity, stackEnv } from '@esp/cli-options';
import { INDEX_SEARCH_NAME, searchInterface, type SearchHit } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';

const ROOT = new URL('../../../', import.meta.url).pathname;
const COLLECTION = 'demo';
const QUERIES = ['free software', 'warranty', 'patent license', 'source code', 'trademark'];

const HELP = `Usage: npm run demo [-- options]

Starts the stack, feeds the sample corpus (collection "${COLLECTION}"), runs a few searches, prints a summary and
stops the stack. Exit status 0 when everything went as expected.

Options:
  --home <dir>     state directory of the demo stack, emptied first (default: .esp/demo)
  --corpus <dir>   documents to feed; files under <dir>/broken/ are expected to fail (default: tools/demo/corpus)
  -h, --help       show this help

Environment:
  NATS_URL         use this NATS server (else a secured nats-server started here)
`;

interface FeedReport {
  documents: number;
  completed: number;
  failed: number;
  unfinished: number;
  lost_and_resubmitted: number;
  seconds: number;
  docs_per_second: number;
  input_errors: string[];
  failures: { id: string; error?: { type: string; code: number; description: string; processor?: string } }[];
}

interface StackJson {
  nats: string;
  processes: { name: string; pid: number; xmlrpc_url?: string }[];
}

const { values } = (() => {
  try {
    return parseArgs({ options: { home: { type: 'string' }, corpus: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    process.stderr.write(`demo: ${(err as Error).message}\nTry --help.\n`);
    process.exit(2);
  }
})();
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const home = resolve(values.home ?? join(ROOT, '.esp', 'demo'));
const corpus = resolve(values.corpus ?? join(ROOT, 'tools', 'demo', 'corpus'));
const out = (line = '') => process.stdout.write(`${line}\n`);
const say = (line: string) => process.stderr.write(`[demo] ${line}\n`);
const problems: string[] = [];

rmSync(home, { recursive: true, force: true });
mkdirSync(home, { recursive: true });
const logFile = join(home, 'stack.log');
const log = createWriteStream(logFile);

const tsx = (entry: string, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess =>
  spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
const exitOf = (p: ChildProcess) => new Promise<number>((r) => (p.exitCode !== null ? r(p.exitCode) : p.once('exit', (code, sig) => r(code ?? (sig ? 128 : 1)))));

// ---- 1. the stack ----
say(`starting the stack (state in ${home}, logs in ${logFile})`);
const launcher = tsx('tools/launcher/src/main.ts', ['--home', home, '--collections', COLLECTION]);
const launcherExit = exitOf(launcher);
launcher.stdout?.pipe(log, { end: false });
let ready = false;
const launcherReady = new Promise<boolean>((done) => {
  if (!launcher.stderr) return done(false);
  createInterface({ input: launcher.stderr }).on('line', (line) => {
    log.write(line + '\n');
    if (!line.startsWith('[launcher]')) return;
    if (!ready || /died|failed/.test(line)) process.stderr.write(`${line}\n`);
    if (line.includes('Ctrl-C stops everything')) done(true);
  });
  void launcherExit.then(() => done(false));
});
let interrupted = false;
process.on('SIGINT', () => {
  interrupted = true;
  say('interrupted; stopping the stack');
  launcher.kill('SIGINT');
});

const stopStack = async (): Promise<number> => {
  if (launcher.exitCode !== null) return launcher.exitCode;
  launcher.kill('SIGINT');
  const t = setTimeout(() => launcher.kill('SIGKILL'), 120_000);
  const code = await launcherExit;
  clearTimeout(t);
  return code;
};

const finish = async (code: number): Promise<never> => {
  const stopped = await stopStack();
  if (stopped !== 0) problems.push(`the stack did not stop cleanly (launcher exit ${stopped})`);
  await new Promise((r) => log.end(r));
  if (problems.length) {
    out('\nUNEXPECTED:');
    for (const p of problems) out(`  - ${p}`);
    out(`(logs of every process: ${logFile})`);
  }
  out(problems.length || code ? 'demo FAILED' : 'demo passed');
  process.exit(problems.length ? 1 : code);
};

const readyTimer = setTimeout(() => launcher.kill('SIGINT'), 180_000);
ready = await launcherReady;
clearTimeout(readyTimer);
if (!ready || interrupted) {
  problems.push(interrupted ? 'interrupted' : `the stack did not start (launcher exit ${launcher.exitCode ?? 'none'}, timeout 180 s)`);
  await finish(1);
}
const stack = JSON.parse(readFileSync(join(home, 'stack.json'), 'utf8')) as StackJson;
out(`The stack (NATS ${stack.nats}):`);
for (const p of stack.processes) out(`  ${p.name.padEnd(22)} pid ${String(p.pid).padEnd(8)}${p.xmlrpc_url ? ` XML-RPC ${p.xmlrpc_url}` : ''}`);

// ---- 2. feed the corpus ----
// the client identity of the demo's home (the secured bus the launcher started there)
const clientEnv = stackEnv({ ...process.env, ESP_HOME: home, NATS_URL: stack.nats }, 'client');
const clientSecurity = natsSecurity({}, clientEnv);
// the feed CLI's ids are the paths as given: the corpus relative to the workspace when it is inside, else absolute
const corpusArg = relative(ROOT, corpus).startsWith('..') ? corpus : relative(ROOT, corpus);
const expectedBroken = existsSync(join(corpus, 'broken')) ? readdirSync(join(corpus, 'broken')).map((f) => join(corpusArg, 'broken', f)).sort() : [];
const reportFile = join(home, 'feed-report.json');
say(`feeding ${corpus} into collection "${COLLECTION}"`);
const feed = tsx('apps/feed/src/main.ts', ['--collection', COLLECTION, '--quiet', '--report', reportFile, '--timeout', '120', corpusArg], clientEnv);
feed.stdout?.pipe(log, { end: false });
feed.stderr?.pipe(log, { end: false });
const feedExit = await exitOf(feed);
let report: FeedReport | undefined;
try {
  report = JSON.parse(readFileSync(reportFile, 'utf8')) as FeedReport;
} catch {
  problems.push(`the feed wrote no report (exit ${feedExit})`);
}
if (report) {
  const failedIds = report.failures.map((f) => f.id).sort();
  const unexpectedFailures = failedIds.filter((id) => !expectedBroken.includes(id));
  const accepted = expectedBroken.filter((id) => !failedIds.includes(id));
  if (unexpectedFailures.length) problems.push(`documents failed that should not have: ${unexpectedFailures.join(', ')}`);
  if (accepted.length) problems.push(`broken documents were accepted: ${accepted.join(', ')}`);
  if (report.unfinished) problems.push(`${report.unfinished} documents got no final status`);
  if (report.input_errors.length) problems.push(`input errors: ${report.input_errors.join('; ')}`);
  if (report.completed !== report.documents - expectedBroken.length) problems.push(`${report.completed} of ${report.documents - expectedBroken.length} good documents completed`);

  const byType = new Map<string, number>();
  for (const f of report.failures) byType.set(f.error?.type ?? 'unknown', (byType.get(f.error?.type ?? 'unknown') ?? 0) + 1);
  const kinds = new Map<string, number>();
  for (const f of walkNames(corpus)) kinds.set(f.split('.').pop() ?? '', (kinds.get(f.split('.').pop() ?? '') ?? 0) + 1);
  out();
  out(`Fed ${report.documents} documents (${[...kinds].map(([k, n]) => `${n} .${k}`).join(', ')}) in ${report.seconds} s: ${report.docs_per_second} docs/s`);
  out(`  completed   ${report.completed}`);
  out(`  failed      ${report.failed}${byType.size ? ` (${[...byType].map(([t, n]) => `${n} ${t}`).join(', ')}), ${expectedBroken.length} expected` : ''}`);
  out(`  lost and resubmitted ${report.lost_and_resubmitted}, without a final status ${report.unfinished}`);
  for (const f of report.failures) out(`  failed ${f.id}: ${f.error ? `${f.error.type}: ${f.error.description}${f.error.processor ? ` [${f.error.processor}]` : ''}` : 'unknown'}`);
}

// ---- 3. search ----
out();
out('Searches:');
const mw = await Middleware.connect({ name: 'demo', servers: stack.nats, ...(typeof clientSecurity === 'string' ? {} : { security: clientSecurity }), logger: createLogger('demo', {}, { level: 'error', destination: process.stderr }) }).catch((err: Error) => {
  problems.push(`cannot connect to NATS for searching: ${err.message}`);
  return undefined;
});
if (mw) {
  try {
    const { proxy } = await mw.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    for (const q of QUERIES) {
      const r = await proxy.search(COLLECTION, q, 3, 0);
      out(`  "${q}": ${r.total} hits`);
      r.hits.forEach((h: SearchHit, i) => out(`    ${i + 1}. ${h.id.padEnd(18)} score ${h.score.toFixed(2)}  ${h.title ? `"${h.title}"` : `${h.snippet.replace(/\s+/g, ' ').slice(0, 70)}...`}`));
      if (!r.total) problems.push(`no hits for "${q}"`);
    }
  } catch (err) {
    problems.push(`search failed: ${(err as Error).message}`);
  } finally {
    await mw.close();
  }
}

// ---- 4. stop ----
out();
say('stopping the stack');
await finish(0);

function walkNames(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && !e.name.startsWith('.'))
    .map((e) => e.name);
}
