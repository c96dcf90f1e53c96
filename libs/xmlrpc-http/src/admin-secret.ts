/**
 * The shared secret that state-changing XML-RPC methods require (HTTP Authorization): read from the file that
 * ESP_ADMIN_SECRET_FILE names, which the launcher generates into its home and passes to every process it starts.
 * Servers check it and clients send it, both by default, so no call site handles it.
 *
 * A client sends `Authorization: Basic base64("esp:" + secret)`, which Python's xmlrpc.client also sends for a
 * URL such as http://esp:<secret>@host:port/RPC2; a server also takes `Bearer <secret>`.
 */
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The one environment variable: the path of a file holding the secret. */
export const ADMIN_SECRET_ENV = 'ESP_ADMIN_SECRET_FILE';

/** The secret file is missing, unreadable, or holds too short a secret. */
export class AdminSecretError extends Error {
  override name = 'AdminSecretError';
  readonly code = 'admin_secret';
}

/** Shorter secrets are refused: they could be guessed. */
export const MIN_SECRET_LENGTH = 16;

const cache = new Map<string, string>();

/** The secret of the file `path` (default: $ESP_ADMIN_SECRET_FILE), or undefined when no file is named. */
export function adminSecret(path: string | undefined = process.env[ADMIN_SECRET_ENV]): string | undefined {
  if (path === undefined || path === '') return undefined;
  const known = cache.get(path);
  if (known !== undefined) return known;
  let secret: string;
  try {
    secret = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new AdminSecretError(`cannot read the admin secret file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  if (secret.length < MIN_SECRET_LENGTH) throw new AdminSecretError(`the admin secret in ${path} is shorter than ${MIN_SECRET_LENGTH} characters`);
  cache.set(path, secret);
  return secret;
}

export function authorizationHeader(secret: string): string {
  return `Basic ${Buffer.from(`esp:${secret}`).toString('base64')}`;
}

/** Does this Authorization header carry the secret (Basic with any user name, or Bearer)? */
export function carriesSecret(header: string | undefined, secret: string): boolean {
  if (!header) return false;
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  let given: string | undefined;
  if (scheme?.toLowerCase() === 'bearer') given = value;
  else if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    given = colon < 0 ? undefined : decoded.slice(colon + 1);
  }
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
