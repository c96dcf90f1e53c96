/**
 * Runs the per-page code paths (an HTTP GET, the indexable-type decision, the charset decision and decoding, HTML
 * parsing and link resolution, URL normalisation, robots rules and directives, hashing, queue entries and the FSCMT
 * messages a page causes) on made-up pages at start-up, before the node scheduler registers with the multinode
 * scheduler. It also waits for @esp/pipeline (the charset decision) to be loaded. The GETs go to a throwaway server on 127.0.0.1 of this process.
 *
 * V8 compiles a function when it is first called and optimizes it only after many calls. A node scheduler that
 * starts crawling cold did that work on its first pages: on the 2-core development machine the first request of
 * each site came 20–100 ms after its robots.txt, and the event loop stood still up to 70 ms between two of them.
 * The first GETs of a fresh process took 30–40 ms and 13–24 ms before settling at about 1 ms (undici compiles its
 * llhttp WebAssembly parser and its connect path on first use). A crawl runs for hours, but every site it starts
 * pays that at once, and its politeness clock with it.
 *
 *   const { ms } = await warmUp();   // 60 made-up pages and a few GETs, tens of ms
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildFscmtDuplicateServerMessage, buildFscmtMultinodeSchedulerMessage, decodeFscmtFrame, encodeFscmtFrame } from '@esp/codecs';
import { DEFAULT_LINK_TAGS } from './crawl-settings';
import { extractLinks } from './link-extractor';
import { httpGet } from './http-get';
import { indexableType } from './indexable-type';
import { entryFor } from './node-scheduler-machine';
import { pageText } from './page-text';
import { parseRobots, robotsAllows } from './robots';
import { headerRobotsDirectives } from './robots-directives';
import { normalizeUri, queryParamMatcher } from './url-normalize';

const BASE = 'http://warm-up.invalid:8080/section/';

function page(i: number): string {
  const links = Array.from({ length: 12 }, (_, k) => `<a href="/section/p${(i + k) % 50}.html">page ${k}</a>`).join('\n');
  return (
    `<!doctype html><html><head><title>Page ${i} &amp; more</title><link href="style.css" rel="stylesheet">` +
    `<meta http-equiv="refresh" content="600; url=/section/p${i}.html"><meta name="robots" content="index, follow"></head><body><h1>Heading ${i}</h1>` +
    `<p>Some text with an entity &eacute; and <b>markup</b>.</p>${links}` +
    `<a href="http://other.invalid:8081/x?y=${i}#frag">away</a><img src="img/${i}.png"><script>var x = ${i};</script></body></html>`
  );
}

export async function warmUp(rounds = 60, gets = 6): Promise<{ ms: number }> {
  const t0 = performance.now();
  await warmUpHttp(gets);
  const utf8 = new TextEncoder();
  const robots = parseRobots('User-agent: *\nDisallow: /private/\nAllow: /private/open\nDisallow: /*.pdf$\nCrawl-delay: 1\n', 'esp-crawler');
  const strip = queryParamMatcher(['utm_*']);
  let sink = 0;
  for (let i = 0; i < rounds; i++) {
    const html = page(i);
    const body = utf8.encode(html);
    // the type decision (file-type's magic number checks) runs on every page too
    if ((await indexableType('text/html; charset=utf-8', body)).indexable) sink++;
    const { text } = await pageText(body, i % 2 === 0 ? 'text/html; charset=utf-8' : 'text/html');
    const uri = `${BASE}p${i}.html`;
    const { links, robots: directives } = extractLinks(text, uri, DEFAULT_LINK_TAGS, { agent: 'esp-crawler' });
    if (directives.noindex || headerRobotsDirectives(i % 2 === 0 ? 'noarchive' : undefined, 'esp-crawler').noindex) sink--;
    const csum = new Uint8Array(createHash('md5').update(body).digest());
    for (const link of links) {
      const u = new URL(normalizeUri(link, strip) ?? uri);
      if (robotsAllows(robots, u.pathname + u.search)) sink++;
    }
    const entry = entryFor(links[0] ?? uri, uri, 1, []);
    const forward = encodeFscmtFrame(buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_URI', dspecName: 'warm-up', entry }), 0);
    const add = encodeFscmtFrame(buildFscmtDuplicateServerMessage({ command: 'PPDUP_ADD', dspecName: 'warm-up', id: 'warm-up', uri, csum }), 0);
    sink += decodeFscmtFrame(forward).dict.size + decodeFscmtFrame(add).dict.size;
  }
  if (sink < 0) throw new Error('unreachable');
  return { ms: performance.now() - t0 };
}

async function warmUpHttp(gets: number): Promise<void> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(0));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  try {
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/section/p0.html`);
    for (let i = 0; i < gets; i++) await httpGet(url, { userAgent: 'esp-crawler warm-up', timeoutMs: 5_000, maxBodyBytes: 1 << 20 });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
