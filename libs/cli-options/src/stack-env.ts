/**
 * What a command line finds of the stack `npm start` runs, so that it connects with no setup: the NATS URL of
 * <home>/stack.json and the credentials of <home>/nats-auth/<identity>.env (the launcher writes both; <home> is
 * $ESP_HOME or .esp). Settings already in the environment win, group by group: a NATS_URL, or any credential,
 * given by the caller is never mixed with the stack's; and the stack's identity goes only to the stack's own server
 * (`servers`, a --nats flag, else NATS_URL, must be the one of stack.json), never to another.
 *
 *   const cli = parseCli(process.argv.slice(2), stackEnv(process.env, 'client'));
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const CREDENTIALS = ['NATS_USER', 'NATS_PASSWORD', 'NATS_PASSWORD_FILE', 'NATS_TOKEN', 'NATS_NKEY', 'NATS_CREDS'];

function readEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m?.[1]) out[m[1]] = m[2] ?? '';
  }
  return out;
}

const urls = (s: string | string[]): string[] => (Array.isArray(s) ? s : s.split(',')).map((u) => u.trim()).filter(Boolean);

/** The value of --nats in a command line, if any. */
function natsFlag(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--nats') return argv[i + 1];
    if (a.startsWith('--nats=')) return a.slice('--nats='.length);
  }
  return undefined;
}

/** `servers` (or the --nats of `argv`) is where the command connects when it says so; else NATS_URL, else the stack's. */
export function stackEnv(
  env: NodeJS.ProcessEnv,
  identity: 'client' | 'admin',
  opts: { home?: string; servers?: string | string[]; argv?: readonly string[] } = {},
): NodeJS.ProcessEnv {
  const servers = opts.servers ?? (opts.argv ? natsFlag(opts.argv) : undefined);
  const home = opts.home ?? resolve(env['ESP_HOME'] ?? '.esp');
  const out: NodeJS.ProcessEnv = { ...env };
  const stackFile = join(home, 'stack.json');
  let stackUrl: string | undefined;
  if (existsSync(stackFile)) {
    try {
      const nats = (JSON.parse(readFileSync(stackFile, 'utf8')) as { nats?: unknown }).nats;
      if (typeof nats === 'string' && nats) stackUrl = nats;
    } catch {
      // an unreadable stack.json says nothing
    }
  }
  if (!stackUrl) return out;
  if (!out['NATS_URL']) out['NATS_URL'] = stackUrl;
  const target = urls(servers ?? out['NATS_URL'] ?? '');
  const ours = urls(stackUrl);
  const toTheStack = target.length > 0 && target.every((u) => ours.includes(u));
  const auth = join(home, 'nats-auth', `${identity}.env`);
  if (toTheStack && !CREDENTIALS.some((k) => out[k]) && existsSync(auth)) {
    try {
      const given = readEnvFile(auth);
      for (const [k, v] of Object.entries(given)) if (k === 'NATS_CA' ? !out[k] : true) out[k] = v;
    } catch {
      // unreadable (another user's home): the command says the credentials are missing when it connects
    }
  }
  return out;
}
