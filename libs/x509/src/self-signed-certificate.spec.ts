import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from './self-signed-certificate';

describe('selfSignedCertificate', () => {
  it('a CA certificate for 127.0.0.1 and localhost, signed by its own key, valid for the days asked', () => {
    const { key, cert } = selfSignedCertificate({ commonName: 'esp test', days: 3650 });
    const x = new X509Certificate(cert);
    expect(x.ca).toBe(true);
    expect(x.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(x.subjectAltName).toContain('DNS:localhost');
    expect(x.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(new Date(x.validTo).getTime()).toBeGreaterThan(Date.now() + 3000 * 86_400_000);
  });
  it('the host names and IPv4 addresses asked for, and no others; a name that is neither is refused', () => {
    const x = new X509Certificate(selfSignedCertificate({ hosts: ['nats', 'localhost', '127.0.0.1', '10.1.2.3'] }).cert);
    expect(x.subjectAltName).toBe('DNS:nats, DNS:localhost, IP Address:127.0.0.1, IP Address:10.1.2.3');
    expect(x.checkHost('nats')).toBe('nats');
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.checkHost('other')).toBeUndefined();
    expect(() => selfSignedCertificate({ hosts: ['bad name'] })).toThrow(/not a host name/);
    expect(() => selfSignedCertificate({ hosts: [] })).toThrow(/at least one/);
  });
  it('the serial number is a positive INTEGER in its shortest form, whatever the random bytes (Go refuses a padded one)', () => {
    for (let i = 0; i < 400; i++) {
      const serial = new X509Certificate(selfSignedCertificate().cert).serialNumber;
      expect(serial).toMatch(/^[0-9A-F]{16}$/);
      const first = parseInt(serial.slice(0, 2), 16);
      expect(first, serial).toBeGreaterThan(0);
      expect(first, serial).toBeLessThan(0x80);
    }
  });
});
