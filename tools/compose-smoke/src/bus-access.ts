/**
 * What the stack's secured NATS admits, asked from the host: a client without credentials (with or without the CA),
 * or with a wrong password, is refused; the feed client's identity from the nats-auth volume connects over TLS,
 * checked against the volume's CA, and reaches the name server.
 *
 *   const problems = await busAccessProblems('nats://127.0.0.1:14222', clientIdentity(dir));
 */
import { join } from 'node:path';
import type { NatsSecurity } from '@esp/cli-options';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';

/** The feed client's identity as the nats-auth volume holds it (roles/client copied to `dir`). */
export function clientIdentity(dir: string): { security: NatsSecurity; env: Record<string, string> } {
  const passwordFile = join(dir, 'password');
  const caFile = join(dir, 'ca.pem');
  return {
    security: { user: 'client', passwordFile, tls: { caFile } },
    env: { NATS_USER: 'client', NATS_PASSWORD_FILE: passwordFile, NATS_CA: caFile },
  };
}

const logger = createLogger('compose-smoke', {}, { level: 'silent' });

/** The reason a connection with `security` was refused, or undefined when it connected (and was closed). */
async function refusal(servers: string, security: NatsSecurity): Promise<string | undefined> {
  try {
    const mw = await Middleware.connect({ name: 'compose-smoke-probe', servers, security, logger, timeoutMs: 5000 });
    await mw.close();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Each way the bus should refuse, and should admit, that did not hold: one line each. */
export async function busAccessProblems(servers: string, client: { security: NatsSecurity }): Promise<string[]> {
  const problems: string[] = [];
  const caFile = client.security.tls?.caFile;
  const refused = async (what: string, security: NatsSecurity, reason?: RegExp): Promise<void> => {
    const why = await refusal(servers, security);
    if (why === undefined) problems.push(`NATS admitted ${what}`);
    else if (reason && !reason.test(why)) problems.push(`NATS refused ${what}, but not for its credentials: ${why}`);
  };
  await refused('a client with no credentials and no CA', {});
  await refused('a client with no credentials (TLS checked against the CA)', { tls: { caFile } }, /authori[sz]ation/i);
  await refused('the client user with a wrong password', { user: 'client', password: 'not-the-password', tls: { caFile } }, /authori[sz]ation/i);
  try {
    const mw = await Middleware.connect({ name: 'compose-smoke-client', servers, security: client.security, logger, timeoutMs: 5000 });
    try {
      await mw.names.ping();
    } finally {
      await mw.close();
    }
  } catch (err) {
    problems.push(`the client identity of the nats-auth volume cannot use the bus: ${(err as Error).message}`);
  }
  return problems;
}
