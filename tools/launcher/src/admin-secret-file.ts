/**
 * The stack's admin secret (state-changing XML-RPC methods need it, see @esp/xmlrpc-http): generated once into
 * <home>/admin-secret, readable by its owner only, and kept across restarts so that clients given the file keep
 * working.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function ensureAdminSecretFile(home: string): { file: string; created: boolean } {
  const file = join(home, 'admin-secret');
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    return { file, created: false };
  }
  writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
  return { file, created: true };
}
