/** Crawl sites as the node scheduler keys them (host[:port]), their hosts, and the IPs a DNS answer names. */
import type { FscmtAddrinfoResult } from '@esp/codecs';

export function siteOf(uri: string): { site: string; host: string; port: number } | undefined {
  try {
    const u = new URL(uri);
    if (!u.hostname) return undefined;
    return { site: u.host.toLowerCase(), host: u.hostname.toLowerCase(), port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return undefined;
  }
}

export function hostOf(site: string): string {
  const i = site.lastIndexOf(':');
  return i > 0 && !site.endsWith(']') ? site.slice(0, i) : site;
}

export function isIp(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.startsWith('[');
}

export function ipsOf(a: FscmtAddrinfoResult): string[] {
  if (a === null) return [];
  return (Array.isArray(a) ? a : [a]).map((x) => x.address.host);
}
