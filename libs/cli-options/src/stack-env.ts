/**
 * What a command line finds of the stack `npm start` runs, so that it connects with no setup: the NATS URL of
 * <home>/stack.json and the credentials of <home>/nats-auth/<identity>.env (the launcher writes both; <home> is
 * $ESP_HOME or .esp). Settings already in the environment win, group by group: a NATS_URL, or any credential,
 * given by the caller is never mixed with the stack's.
 *
 *   const cli = parseCli(process.argv.slice(2), stackEnv(process.env, 'client'));
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const CREDENTIALS = ['NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_NKEY', 'NATS_CREDS'];

function readEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m?.[1]) out[m[1]] = m[2] ?? '';
  }
  return out;
}

export function stackEnv(env: NodeJS.ProcessEnv, identity: 'client' | 'admin', home = resolve(env['ESP_HOME'] ?? '.esp')): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  const stackFile = join(home, 'stack.json');
  if (!out['NATS_URL'] && existsSync(stackFile)) {
    try {
      const nats = (JSON.parse(readFileSync(stackFile, 'utf8')) as { nats?: unknown }).nats;
      if (typeof nats === 'string' && nats) out['NATS_URL'] = nats;
    } catch {
      // an unreadable stack.json says nothing
    }
  }
  const auth = join(home, 'nats-auth', `${identity}.env`);
  if (!CREDENTIALS.some((k) => out[k]) && existsSync(auth)) {
    try {
      const given = readEnvFile(auth);
      for (const [k, v] of Object.entries(given)) if (k === 'NATS_CA' ? !out[k] : true) out[k] = v;
    } catch {
      // unreadable (another user's home): the command says the credentials are missing when it connects
    }
  }
  return out;
}
