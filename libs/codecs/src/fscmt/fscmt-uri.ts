/**
 * The URI structure (MS-FSCMT 2.2.2.2.4): a 14-tuple with the URI and, when parsed, its RFC 2396 parts.
 *
 *   fscmtParsedUri('http://www.contoso.com/a?b')  // parsed = 1, port 80, path '/a', query 'b'
 *   fscmtUnparsedUri('')                           // the empty referrer of a start URI
 */
import { FswcuTuple } from '../fswcu/fswcu-value';
import { fscmtInt, fscmtItemLabels, fscmtNullable, fscmtText, fscmtTupleItems, type FscmtFieldCodec } from './fscmt-fields';

export interface FscmtUri {
  uri: string;
  scheme: string;
  netloc: string;
  host: string;
  /** None on the wire when the URI is not parsed. */
  port: number | null;
  path: string;
  query: string;
  params: string;
  fragment: string;
  credentials: string;
  defaultScheme: string;
  /** 1: skip the fragment part. */
  skipFragments: number;
  /** 1: entries 1 to 9 hold the parsed parts. 0: they hold '' and None. */
  parsed: number;
  hostIdna: string;
}

const optionalInt = fscmtNullable(fscmtInt);

export const fscmtUri: FscmtFieldCodec<FscmtUri> = {
  read(value, path) {
    const t = fscmtTupleItems(value, path, 14);
    const at = fscmtItemLabels(path);
    return {
      uri: fscmtText.read(t[0], at(0)),
      scheme: fscmtText.read(t[1], at(1)),
      netloc: fscmtText.read(t[2], at(2)),
      host: fscmtText.read(t[3], at(3)),
      port: optionalInt.read(t[4], at(4)),
      path: fscmtText.read(t[5], at(5)),
      query: fscmtText.read(t[6], at(6)),
      params: fscmtText.read(t[7], at(7)),
      fragment: fscmtText.read(t[8], at(8)),
      credentials: fscmtText.read(t[9], at(9)),
      defaultScheme: fscmtText.read(t[10], at(10)),
      skipFragments: fscmtInt.read(t[11], at(11)),
      parsed: fscmtInt.read(t[12], at(12)),
      hostIdna: fscmtText.read(t[13], at(13)),
    };
  },
  write(u) {
    const t = fscmtText.write;
    return new FswcuTuple([
      t(u.uri),
      t(u.scheme),
      t(u.netloc),
      t(u.host),
      optionalInt.write(u.port),
      t(u.path),
      t(u.query),
      t(u.params),
      t(u.fragment),
      t(u.credentials),
      t(u.defaultScheme),
      fscmtInt.write(u.skipFragments),
      fscmtInt.write(u.parsed),
      t(u.hostIdna),
    ]);
  },
};

/** A URI structure that is not parsed: only the URI itself (the spec's form for an empty referrer). */
export function fscmtUnparsedUri(uri: string, defaultScheme = ''): FscmtUri {
  return {
    uri,
    scheme: '',
    netloc: '',
    host: '',
    port: null,
    path: '',
    query: '',
    params: '',
    fragment: '',
    credentials: '',
    defaultScheme,
    skipFragments: 0,
    parsed: 0,
    hostIdna: '',
  };
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443, ftp: 21 };

// RFC 2396 appendix B.
const URI_PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

/**
 * A parsed URI structure, split as RFC 2396 (and Python's urlparse) does: params are the `;...` part of the last
 * path segment, credentials the `user:password` before '@'. The port defaults by scheme (http 80, https 443, ftp 21).
 */
export function fscmtParsedUri(uri: string, options: { defaultScheme?: string; skipFragments?: boolean } = {}): FscmtUri {
  // Every string matches (all parts are optional); the fallback only satisfies the type checker.
  const m = URI_PARTS.exec(uri) ?? [];
  const scheme = (m[1] ?? options.defaultScheme ?? '').toLowerCase();
  const netloc = m[2] ?? '';
  let path = m[3] ?? '';
  let params = '';
  const lastSlash = path.lastIndexOf('/');
  const semicolon = path.indexOf(';', lastSlash + 1);
  if (semicolon >= 0) {
    params = path.slice(semicolon + 1);
    path = path.slice(0, semicolon);
  }
  const at = netloc.lastIndexOf('@');
  const credentials = at >= 0 ? netloc.slice(0, at) : '';
  const hostPort = at >= 0 ? netloc.slice(at + 1) : netloc;
  // Lazy host, so a bracketed IPv6 literal keeps its inner colons and only a trailing :digits is the port.
  const portMatch = /^(.*?)(?::(\d*))?$/s.exec(hostPort) ?? [];
  const host = (portMatch[1] ?? hostPort).toLowerCase();
  const port = portMatch[2] ? Number(portMatch[2]) : (DEFAULT_PORTS[scheme] ?? null);
  return {
    uri,
    scheme,
    netloc,
    host,
    port,
    path,
    query: m[4] ?? '',
    params,
    fragment: m[5] ?? '',
    credentials,
    defaultScheme: options.defaultScheme ?? '',
    skipFragments: options.skipFragments ? 1 : 0,
    parsed: 1,
    hostIdna: toIdna(host),
  };
}

function toIdna(host: string): string {
  // The WHATWG URL parser applies IDNA (RFC 3490 ToASCII) to the host; ASCII hosts come back unchanged.
  let ascii = true;
  for (let i = 0; i < host.length && ascii; i++) ascii = host.charCodeAt(i) < 0x80;
  if (ascii) return host;
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return host;
  }
}
