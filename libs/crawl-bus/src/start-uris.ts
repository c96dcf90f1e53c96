/**
 * The start URIs of a crawl configuration (the `start_uris` list-string of a DomainSpecification, MS-FSCMT 2.2.2.3),
 * as both schedulers need them: the multinode scheduler to queue them and to requeue a dead node's sites, a node
 * scheduler to requeue them on CMD_ADM_CONF_UPDATE (3.1.5.11). Members that are not http(s) URLs are left out (the
 * configuration loader refuses them before they get here).
 *
 *   crawlStartUris(dspec); // ['http://a.example/', ...]
 */
import type { FswcuDict, FswcuValue } from '@esp/codecs';

export function crawlStartUris(dspec: FswcuDict): string[] {
  const list = dspec.getText('start_uris');
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const v of list as FswcuValue[]) {
    const uri = v instanceof Uint8Array ? new TextDecoder().decode(v) : typeof v === 'string' ? v : undefined;
    if (uri === undefined) continue;
    try {
      const u = new URL(uri);
      if (u.protocol === 'http:' || u.protocol === 'https:') out.push(uri);
    } catch {
      // not a URL: nothing to queue
    }
  }
  return out;
}
