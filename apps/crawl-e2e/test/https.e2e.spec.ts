import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { LocalWebSites, selfSignedCertificate, sleep, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlCluster } from './crawl-cluster';

let sites: LocalWebSites;
let cluster: CrawlCluster;
let client: Middleware;
const dir = mkdtempSync(join(tmpdir(), 'esp-crawl-tls-'));

beforeAll(async () => {
  // a certificate made here, trusted by the node scheduler process only (NODE_EXTRA_CA_CERTS), not by this one
  const tls = selfSignedCertificate();
  const caFile = join(dir, 'sites-ca.pem');
  writeFileSync(caFile, tls.cert);
  sites = await LocalWebSites.start({ hosts: 2, pagesPerHost: 20, tls });
  cluster = await CrawlCluster.start({ startUris: sites.startUris, nodes: 1, delaySeconds: 0.005, feed: true, nodeEnv: { NODE_EXTRA_CA_CERTS: caFile } });
  client = await Middleware.connect({ name: 'crawl-https-e2e', servers: cluster.ns.url, logger: createLogger('crawl-https-e2e', {}, { level: 'warn' }) });
}, 120_000);
afterAll(async () => {
  await client?.close();
  await cluster?.stop();
  await sites?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a node scheduler crawls HTTPS sites', () => {
  it('the certificate is not trusted by default; with it trusted, every allowed page is fetched over TLS once and fed', async () => {
    expect(sites.startUris.every((u) => u.startsWith('https://127.0.0.1:'))).toBe(true);
    // the sites really need the certificate: without it a client refuses them
    await expect(fetch(sites.startUris[0]!)).rejects.toThrow();

    await waitFor(() => [...sites.expectedFetches].every((u) => (sites.hits.get(u) ?? 0) > 0), {
      timeoutMs: 60_000,
      what: `all ${sites.expectedFetches.size} https pages fetched (have ${sites.totalHits})`,
    });
    await sleep(500);
    for (const u of sites.expectedFetches) expect(sites.hits.get(u), u).toBe(1);
    for (const u of sites.excluded) expect(sites.hits.get(u), u).toBeUndefined();
    // robots.txt came over TLS too (it excluded /private/ above) and nothing failed
    expect(sites.hits.get(`${sites.startUris[0]}robots.txt`)).toBe(1);

    // fed: one document per distinct content, under its https URL, found by its token
    const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    const distinctContents = sites.contentPages.size - sites.duplicateGroups.reduce((n, g) => n + g.length - 1, 0);
    await waitFor(async () => (await search.count('web')) === distinctContents, { timeoutMs: 30_000, what: `${distinctContents} documents in the index` });
    const sample = [...sites.contentPages].filter((_, i) => i % 7 === 0);
    for (const url of sample) {
      const r = await search.search('web', sites.tokenOf.get(url)!, 5, 0);
      expect(r.hits.length, url).toBe(1);
      expect(r.hits[0]!.id).toMatch(/^https:\/\/127\.0\.0\.1:/);
    }
  }, 120_000);
});
