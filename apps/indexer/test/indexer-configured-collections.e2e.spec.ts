/**
 * With a config server (--config-service), the indexer serves every collection of the configuration from its
 * start, and a search of a collection added there later opens it too: a crawl's collection is searchable after a
 * restart of the stack before anything is fed into it again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INDEX_SEARCH_NAME, searchInterface, UnknownCollection } from '@esp/interfaces';
import { Middleware, serveNameServer } from '@esp/middleware';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIndexer } from '../src/indexer';

describe('indexer: the collections of the configuration', () => {
  let ns: NatsServer;
  let nameServer: Middleware;
  let dir: string;
  beforeAll(async () => {
    ns = await NatsServer.start();
    nameServer = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nameServer);
    dir = mkdtempSync(join(tmpdir(), 'indexer-configured-'));
  });
  afterAll(async () => {
    await nameServer?.close();
    await ns?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens every configured collection at start; a search of one added later opens it; an unknown one raises unknown_collection', async () => {
    const configured = ['default', 'web', 'later'];
    const mw = await Middleware.connect({ name: 'indexer', servers: ns.url });
    const indexer = await startIndexer({
      mw,
      dataDir: dir,
      collections: ['default'],
      basePort: 17100,
      configuredCollections: async () => ['default', 'web'],
      configured: async (c) => configured.includes(c),
    });
    const client = await Middleware.connect({ name: 'client', servers: ns.url });
    try {
      expect(indexer.collections).toEqual(['default', 'web']);
      const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
      expect(await search.search('web', 'anything', 10, 0)).toEqual({ total: 0, hits: [] });
      expect(await search.count('later')).toBe(0);
      expect(indexer.collections).toContain('later');
      await expect(search.search('nope', 'anything', 10, 0)).rejects.toBeInstanceOf(UnknownCollection);
    } finally {
      await client.close();
      await indexer.close();
      await mw.close();
    }
  });

  it('a configuration that cannot be listed at start: the indexer starts with its own collections', async () => {
    const mw = await Middleware.connect({ name: 'indexer-2', servers: ns.url });
    const indexer = await startIndexer({
      mw,
      dataDir: join(dir, 'b'),
      collections: ['default'],
      basePort: 17200,
      bind: false,
      configuredCollections: async () => {
        throw new Error('no config server');
      },
    });
    try {
      expect(indexer.collections).toEqual(['default']);
    } finally {
      await indexer.close();
      await mw.close();
    }
  });
});
