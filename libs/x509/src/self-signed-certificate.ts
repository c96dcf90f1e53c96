/**
 * A self-signed TLS certificate made with node:crypto alone (no openssl binary, no npm package), for tests that
 * serve HTTPS on 127.0.0.1: an EC P-256 key and an X.509 v3 certificate for IP 127.0.0.1 and DNS localhost (or the
 * host names and IPv4 addresses given), marked as a CA so that a client can trust it directly (NODE_EXTRA_CA_CERTS,
 * `ca` options).
 *
 *   const { key, cert } = selfSignedCertificate();   // PEM strings
 *   https.createServer({ key, cert }, handler);
 *   selfSignedCertificate({ hosts: ['nats', 'localhost', '127.0.0.1'] });   // a server other containers call "nats"
 *
 * The DER is written by hand below: Node can sign but has no API that builds a certificate.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIPv4 } from 'node:net';

export interface SelfSignedCertificate {
  /** PKCS#8 private key, PEM. */
  key: string;
  /** X.509 certificate, PEM. */
  cert: string;
}

/** The subject alternative names when none are asked for. */
export const DEFAULT_CERTIFICATE_HOSTS: readonly string[] = ['127.0.0.1', 'localhost'];

export interface SelfSignedCertificateOptions {
  commonName?: string;
  days?: number;
  /** The names clients reach the server by: IPv4 addresses and DNS names (default 127.0.0.1 and localhost). */
  hosts?: readonly string[];
}

export function selfSignedCertificate(opts: SelfSignedCertificateOptions = {}): SelfSignedCertificate {
  const hosts = opts.hosts ?? DEFAULT_CERTIFICATE_HOSTS;
  if (hosts.length === 0) throw new Error('a certificate needs at least one host name or address');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(opts.commonName ?? 'esp test sites')))));
  const now = Date.now();
  const serial = randomBytes(8);
  // a positive INTEGER in its shortest form: a first byte of 0 would be a padding byte that strict parsers (Go's,
  // so nats-server's) refuse as a malformed serial number
  serial[0] = ((serial[0] as number) & 0x7f) | 0x01;
  const extensions = seq(
    // basicConstraints (critical): CA:TRUE, so the certificate is its own trust anchor
    seq(oid('2.5.29.19'), tlv(0x01, Buffer.from([0xff])), tlv(0x04, seq(tlv(0x01, Buffer.from([0xff]))))),
    // keyUsage: digitalSignature, keyCertSign
    seq(oid('2.5.29.15'), tlv(0x04, tlv(0x03, Buffer.from([0x02, 0x84])))),
    // subjectAltName (clients check the name against these, not the common name)
    seq(oid('2.5.29.17'), tlv(0x04, seq(...hosts.map(altName)))),
  );
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))), // version 3
    tlv(0x02, serial),
    ecdsaWithSha256,
    name,
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + (opts.days ?? 7) * 86_400_000))),
    name,
    spki,
    tlv(0xa3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey); // DER ECDSA-Sig-Value
  const der = seq(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const cert = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return { key, cert };
}

/** A GeneralName: iPAddress [7] for an IPv4 address, dNSName [2] otherwise. */
function altName(host: string): Buffer {
  if (isIPv4(host)) return tlv(0x87, Buffer.from(host.split('.').map(Number)));
  if (!/^[A-Za-z0-9*]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(host)) throw new Error(`not a host name or IPv4 address: ${JSON.stringify(host)}`);
  return tlv(0x82, Buffer.from(host, 'ascii'));
}

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const len = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, content]);
}

function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const out = [a * 40 + b];
  for (const v of rest) {
    const bytes = [v & 0x7f];
    for (let x = v >>> 7; x > 0; x >>>= 7) bytes.unshift((x & 0x7f) | 0x80);
    out.push(...bytes);
  }
  return tlv(0x06, Buffer.from(out));
}

function utcTime(d: Date): Buffer {
  const p = (n: number): string => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(s));
}
