/**
 * The gateway's CURVE settings (ZeroMQ RFC 26): its key pair, kept in a file that is generated on first use and
 * readable by its owner only, and the public keys of the peers it accepts.
 *
 * Key file: two lines, `public-key = <Z85>` and `secret-key = <Z85>`. Clients file: one Z85 public key per line,
 * anything after it (past a space) is a comment, as is a line of "#" then a space; a bare "#" cannot start a comment
 * anywhere else, since it is a Z85 character.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { curveKeyPair } from 'zeromq';
import { isZ85Key } from './z85';

/** A key file or clients file that cannot be read or does not hold keys. */
export class CurveKeyError extends Error {
  override name = 'CurveKeyError';
  readonly code = 'curve_key';
}

export interface CurveKeyPair {
  publicKey: string;
  secretKey: string;
}

export function loadOrCreateKeyPair(file: string): { keys: CurveKeyPair; created: boolean } {
  if (!existsSync(file)) {
    const keys = curveKeyPair();
    writeFileSync(file, `public-key = ${keys.publicKey}\nsecret-key = ${keys.secretKey}\n`, { mode: 0o600, flag: 'wx' });
    return { keys, created: true };
  }
  chmodSync(file, 0o600);
  const fields = new Map<string, string>();
  for (const line of read(file).split('\n')) {
    const m = /^\s*(public-key|secret-key)\s*=\s*(\S+)\s*$/.exec(line);
    if (m?.[1] && m[2]) fields.set(m[1], m[2]);
  }
  const publicKey = fields.get('public-key');
  const secretKey = fields.get('secret-key');
  if (!publicKey || !secretKey || !isZ85Key(publicKey) || !isZ85Key(secretKey)) {
    throw new CurveKeyError(`${file} must hold "public-key = <40 Z85 characters>" and "secret-key = <40 Z85 characters>"`);
  }
  return { keys: { publicKey, secretKey }, created: false };
}

export function loadClientKeys(file: string): Set<string> {
  const keys = new Set<string>();
  for (const [i, raw] of read(file).split('\n').entries()) {
    const line = raw.trim().split(/\s/, 1)[0] ?? '';
    if (!line || line === '#' || /^#\s/.test(raw.trim())) continue;
    if (!isZ85Key(line)) throw new CurveKeyError(`${file}:${i + 1}: not a Z85 CURVE public key (40 characters)`);
    keys.add(line);
  }
  return keys;
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CurveKeyError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
}
