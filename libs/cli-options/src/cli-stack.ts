/**
 * Where a command line of this workspace runs and which stack it talks to, the same way for every command:
 *
 *   const where = cliStack(process.argv.slice(2), process.env, 'client', 'feed');
 *   if (where.kind === 'no-stack') { process.stderr.write(`feed: ${where.message}\n`); process.exit(1); }
 *   process.chdir(where.cwd);                       // relative paths of the command line are the user's
 *   const cli = parseCli(argv, where.env);
 *   process.stderr.write(`feed: ${homeLine(where)}\n`);
 *
 * - The user's directory: `npm run` runs a script in the repository, and passes the directory the command was typed
 *   in as $INIT_CWD (userCwd: only to the script npm runs, not to what inherits the variable). Relative paths the user gives (inputs, --report, --home, $ESP_HOME, credential files) resolve
 *   there; without $INIT_CWD, in the working directory.
 * - The home: --home, else $ESP_HOME, else .esp of the directory the command runs in (the repository under npm run,
 *   where `npm start` keeps it). Its stack.json gives the NATS URL, its nats-auth/<identity>.env the credentials
 *   (stack-env.ts).
 * - No fallback to an unknown server: without a stack in the home, --nats or $NATS_URL, there is nothing to connect
 *   to, and the command says so instead of trying nats://127.0.0.1:4222 (anyone's server could listen there).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { stackEnv } from './stack-env';
import { stackState } from './stack-state';

export type HomeSource = '--home' | '$ESP_HOME' | 'default';

export interface CliStack {
  kind: 'stack';
  /** Where the user typed the command ($INIT_CWD under npm run, else the working directory). */
  cwd: string;
  /** The home, absolute. */
  home: string;
  from: HomeSource;
  /** The NATS URL of <home>/stack.json, if the home has a stack. */
  stackNats: string | undefined;
  /** Where the NATS servers come from: --nats, $NATS_URL, or the home's stack.json. */
  natsFrom: '--nats' | '$NATS_URL' | 'stack.json';
  /** The environment to parse the command line with: the stack's NATS_URL and credentials filled in (stack-env.ts). */
  env: NodeJS.ProcessEnv;
}

export interface NoStack {
  kind: 'no-stack';
  cwd: string;
  home: string;
  from: HomeSource;
  /** What to tell the user: that no stack was found, and how to start one or point at one. */
  message: string;
  /** The home's launcher runs and has no NATS server yet: cliStackStarted waits for it. */
  starting?: boolean;
  /** The environment as given (to parse the command line with, e.g. for --help). */
  env: NodeJS.ProcessEnv;
}

/**
 * The directory the user typed the command in: $INIT_CWD when npm runs this very script (`npm run feed` sets
 * $npm_lifecycle_event to "feed"), else the working directory. A process that merely inherits $INIT_CWD (a command
 * a test runner started with `npx` spawns with a working directory of its own) works where it was started.
 */
export function userCwd(env: NodeJS.ProcessEnv, script?: string): string {
  const init = env['INIT_CWD'];
  const ours = script === undefined || env['npm_lifecycle_event'] === script;
  return init && ours && existsSync(init) ? init : process.cwd();
}

/** The value of a `--name <v>` / `--name=<v>` option in a command line (the last one), before it is parsed. */
export function optionValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') break;
    if (a === `--${name}`) value = argv[++i];
    else if (a.startsWith(`--${name}=`)) value = a.slice(name.length + 3);
  }
  return value;
}

/** The home of a command line: --home, else $ESP_HOME (both relative to the user's directory), else ./.esp. */
export function cliHome(argv: readonly string[], env: NodeJS.ProcessEnv, script?: string): { home: string; from: HomeSource; cwd: string } {
  const cwd = userCwd(env, script);
  const flag = optionValue(argv, 'home');
  if (flag) return { home: resolve(cwd, flag), from: '--home', cwd };
  if (env['ESP_HOME']) return { home: resolve(cwd, env['ESP_HOME']), from: '$ESP_HOME', cwd };
  return { home: resolve('.esp'), from: 'default', cwd };
}

/** The paths of credential and TLS files given in the environment, relative to the user's directory. */
const FILE_VARS = ['NATS_PASSWORD_FILE', 'NATS_NKEY', 'NATS_CREDS', 'NATS_CA', 'NATS_CERT', 'NATS_KEY'];

/** `script`: the npm script that runs the command ("feed"): $INIT_CWD is the user's directory when npm runs it. */
export function cliStack(argv: readonly string[], env: NodeJS.ProcessEnv, identity: 'client' | 'admin', script?: string): CliStack | NoStack {
  const { home, from, cwd } = cliHome(argv, env, script);
  const base: NodeJS.ProcessEnv = { ...env };
  for (const k of FILE_VARS) if (base[k]) base[k] = resolve(cwd, base[k] as string);
  const stack = stackState(home);
  const flag = optionValue(argv, 'nats');
  const named = flag ? '--nats' : env['NATS_URL'] ? '$NATS_URL' : undefined;
  const start = 'start it with `npm start`' + (from === 'default' ? '' : ` -- --home ${home}`);
  // a stack that is not running has no server to wait for: say so at once (unless a server was named)
  if (!named && (stack.state === 'stopped' || stack.state === 'gone')) {
    const why = stack.state === 'stopped' ? `stopped${stack.stoppedAt ? ` (at ${stack.stoppedAt})` : ''}` : `not running: its launcher (pid ${stack.launcherPid}) is gone`;
    return { kind: 'no-stack', env: base, cwd, home, from, message: `the stack of ${home} is ${why}; ${start}` };
  }
  if (!named && stack.state === 'starting' && !stack.nats) {
    return { kind: 'no-stack', env: base, cwd, home, from, starting: true, message: `the stack of ${home} is starting (launcher pid ${stack.launcherPid}) and has no NATS server yet; try again once \`npm start\` says it runs, or give it longer with --wait-for-nats <s>` };
  }
  const stackNats = stack.nats;
  const natsFrom = named ?? (stackNats ? 'stack.json' : undefined);
  if (!natsFrom) {
    const which = from === 'default' ? `${home} (the default home; --home <dir> or $ESP_HOME name another)` : `${home} (from ${from})`;
    return {
      kind: 'no-stack',
      env: base,
      cwd,
      home,
      from,
      message:
        `found no stack: no stack.json in ${which}. Start one with \`npm start\` (or \`npm start -- --home <dir>\`), ` +
        `point at a running one with --home <dir> or $ESP_HOME, or name a NATS server with --nats <url> or $NATS_URL ` +
        `(nats://127.0.0.1:4222 is not tried unless you say so)`,
    };
  }
  return { kind: 'stack', cwd, home, from, stackNats, natsFrom, env: stackEnv(base, identity, { home, argv }) };
}

/**
 * cliStack, waiting while the home's stack is starting and has no NATS server yet (up to --wait-for-nats, saying so
 * once through `onWaiting`): a command typed right after `npm start` connects to the server this start runs, never
 * to the one a stack.json of the run before named. --help never waits.
 */
export async function cliStackStarted(argv: readonly string[], env: NodeJS.ProcessEnv, identity: 'client' | 'admin', script: string | undefined, onWaiting?: (message: string) => void): Promise<CliStack | NoStack> {
  let where = cliStack(argv, env, identity, script);
  if (where.kind === 'stack' || !where.starting || argv.includes('--help') || argv.includes('-h')) return where;
  const ms = waitForNatsMs(optionValue(argv, 'wait-for-nats'));
  const waitMs = typeof ms === 'number' ? ms : DEFAULT_WAIT_FOR_NATS_S * 1000;
  if (waitMs > 0) onWaiting?.(`the stack of ${where.home} is starting: waiting up to ${waitMs / 1000} s for its NATS server; --wait-for-nats sets how long`);
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    where = cliStack(argv, env, identity, script);
    if (where.kind === 'stack' || !where.starting) return where;
  }
  return where;
}

/** The one line that says which home and server a command uses. */
export function homeLine(s: CliStack, servers: readonly string[]): string {
  const home = `home ${s.home}${s.from === 'default' ? '' : ` (${s.from})`}`;
  const nats = s.natsFrom === 'stack.json' ? `its stack at ${servers.join(',')}` : `NATS at ${servers.join(',')} (${s.natsFrom})`;
  return `${home}; ${nats}`;
}

/** How long a command line waits for its first connection to NATS unless told (--wait-for-nats). */
export const DEFAULT_WAIT_FOR_NATS_S = 30;

/** The options of STACK_HELP, to spread into a command's parseArgs options. */
export const STACK_OPTIONS = { home: { type: 'string' }, nats: { type: 'string' }, 'wait-for-nats': { type: 'string' } } as const;

/** Appended to a command's --help: the home, the server, waiting for it, and where relative paths resolve. */
export const STACK_HELP = `Stack and paths:
  --home <dir>            the stack's home, as \`npm start -- --home <dir>\` made it (default: $ESP_HOME, else
                          .esp of the repository): <home>/stack.json names its NATS server, <home>/nats-auth/ holds
                          the credentials of its roles
  --nats <url>            NATS server URL(s), comma separated, instead of the home's stack ($NATS_URL); without a
                          stack in the home, --nats or $NATS_URL the command stops: it never falls back to a
                          server on nats://127.0.0.1:4222 that nobody named
  --wait-for-nats <s>     wait this long for the first connection when NATS is not up yet, saying so on stderr
                          (default: ${DEFAULT_WAIT_FOR_NATS_S}; 0: fail at once)
  Relative paths (inputs, --home, $ESP_HOME, --report, credential files) are relative to the directory the command
  was typed in ($INIT_CWD, which npm passes), not to the repository npm runs it in.
`;

/** --wait-for-nats in milliseconds (DEFAULT_WAIT_FOR_NATS_S when absent), or the error message to show. */
export function waitForNatsMs(raw: string | undefined): number | string {
  const s = raw === undefined ? DEFAULT_WAIT_FOR_NATS_S : Number(raw);
  if (raw !== undefined && (raw.trim() === '' || !Number.isFinite(s) || s < 0 || s > 86_400)) return `--wait-for-nats must be a number of seconds from 0 to 86400, got "${raw}"`;
  return Math.round(s * 1000);
}
