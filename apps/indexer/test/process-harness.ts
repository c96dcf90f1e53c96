/**
 * For tests that run the indexer as a process: a real nats-server, a client connection that also serves the name
 * server, and a data directory, made before the tests of the file and removed after them (the process too, if one
 * was left running in `proc`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Middleware, serveNameServer } from '@esp/middleware';
import { type ChildService, NatsServer } from '@esp/testing';
import { afterAll, beforeAll } from 'vitest';

export interface ProcessHarness {
  ns: NatsServer;
  client: Middleware;
  dir: string;
  proc: ChildService | undefined;
}

export function useProcessHarness(name: string, opts: { timeoutMs: number; dirPrefix: string }): ProcessHarness {
  const h = { proc: undefined } as ProcessHarness;
  beforeAll(async () => {
    h.ns = await NatsServer.start();
    h.client = await Middleware.connect({ name, servers: h.ns.url, timeoutMs: opts.timeoutMs });
    await serveNameServer(h.client);
    h.dir = mkdtempSync(join(tmpdir(), opts.dirPrefix));
  });
  afterAll(async () => {
    await h.proc?.kill();
    await h.client?.close();
    await h.ns?.cleanup();
    if (h.dir) rmSync(h.dir, { recursive: true, force: true });
  });
  return h;
}
