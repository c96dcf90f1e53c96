/**
 * NatsSecurity (the settings of a command line or the environment, @esp/cli-options) as nats.js connection options:
 * the library's own authenticators for nkeys and .creds files, its user / pass / token options, and TLS by file.
 * Files are read here, once, so an unreadable one is a clear startup error rather than a failed handshake.
 */
import { readFileSync } from 'node:fs';
import type { NatsSecurity } from '@esp/cli-options';
import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';

/** A credentials or TLS file named by the settings cannot be read or does not hold what it should. */
export class NatsCredentialsError extends Error {
  override name = 'NatsCredentialsError';
  readonly code = 'nats_credentials';
}

export type NatsAuthOptions = Pick<ConnectionOptions, 'authenticator' | 'user' | 'pass' | 'token' | 'tls'>;

export function natsAuthOptions(security: NatsSecurity, servers: string | string[]): NatsAuthOptions {
  const out: NatsAuthOptions = {};
  if (security.user !== undefined) Object.assign(out, { user: security.user, pass: security.passwordFile !== undefined ? passwordOf(security.passwordFile) : security.password });
  if (security.token !== undefined) out.token = security.token;
  if (security.nkeySeedFile !== undefined) {
    const seed = readText(security.nkeySeedFile, 'nkey seed').trim();
    if (!/^SU[A-Z2-7]{50,}$/.test(seed)) throw new NatsCredentialsError(`${security.nkeySeedFile} does not hold an nkey user seed (a line starting with SU)`);
    out.authenticator = nkeyAuthenticator(new TextEncoder().encode(seed));
  }
  if (security.credsFile !== undefined) {
    const creds = readText(security.credsFile, '.creds');
    if (!creds.includes('BEGIN NATS USER JWT') || !creds.includes('BEGIN USER NKEY SEED')) {
      throw new NatsCredentialsError(`${security.credsFile} is not a .creds file (it needs a NATS USER JWT and a USER NKEY SEED block)`);
    }
    out.authenticator = credsAuthenticator(new TextEncoder().encode(creds));
  }
  const tlsUrl = [servers].flat().some((s) => s.startsWith('tls://'));
  if (security.tls || tlsUrl) {
    const t = security.tls ?? {};
    // nats.js reads the files itself when it connects; they are checked here so a typo fails before that
    for (const [file, what] of [
      [t.caFile, 'CA certificate'],
      [t.certFile, 'client certificate'],
      [t.keyFile, 'client key'],
    ] as const) {
      if (file !== undefined) readText(file, what);
    }
    out.tls = { ...(t.caFile ? { caFile: t.caFile } : {}), ...(t.certFile ? { certFile: t.certFile } : {}), ...(t.keyFile ? { keyFile: t.keyFile } : {}) };
  }
  return out;
}

/** The first line of a password file, as `echo secret > file` and generators that end with a newline write it. */
function passwordOf(file: string): string {
  const password = readText(file, 'password').split(/\r?\n/)[0] ?? '';
  if (!password) throw new NatsCredentialsError(`the NATS password file ${file} is empty`);
  return password;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new NatsCredentialsError(`cannot read the NATS ${what} file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
}
