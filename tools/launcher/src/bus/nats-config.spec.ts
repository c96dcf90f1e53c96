import { describe, expect, it } from 'vitest';
import { busPermissions } from './bus-roles';
import { natsServerConfig, versionAtLeast } from './nats-config';

describe('natsServerConfig', () => {
  const users = [
    { role: 'name-server' as const, user: 'name-server', password: 'p"w\\1' },
    { role: 'client' as const, user: 'feeder', password: 'pw2' },
  ];

  it('TLS, JetStream and one user per role, passwords quoted', () => {
    const text = natsServerConfig({ users, tls: { certFile: '/h/server.pem', keyFile: '/h/key.pem' }, jetstream: { storeDir: '/h/js' }, listen: '127.0.0.1:4222' });
    expect(text).toContain('cert_file: "/h/server.pem"');
    expect(text).toContain('store_dir: "/h/js"');
    expect(text).toContain('listen: "127.0.0.1:4222"');
    expect(text).toContain('password: "p\\"w\\\\1"');
    expect(text).toContain('"_INBOX.feeder.>"');
  });

  it('sync_interval: always only for nats-server 2.10 and later (2.9 refuses the field)', () => {
    expect(natsServerConfig({ users, serverVersion: 'v2.9.10' })).not.toContain('sync_interval');
    expect(natsServerConfig({ users, serverVersion: '2.10.0' })).toContain('sync_interval: always');
    expect(natsServerConfig({ users, serverVersion: '2.12.1' })).toContain('sync_interval: always');
    expect(versionAtLeast('3.0.0', 2, 10)).toBe(true);
    expect(versionAtLeast('garbage', 2, 10)).toBe(false);
  });

  it('refuses a user twice or without a password', () => {
    expect(() => natsServerConfig({ users: [...users, { role: 'admin', user: 'feeder', password: 'x' }] })).toThrow(/twice/);
    expect(() => natsServerConfig({ users: [{ role: 'admin', user: 'a', password: '' }] })).toThrow(/password/);
  });

  it('only the admin may subscribe to everything', () => {
    expect(busPermissions('admin').subscribe).toEqual(['>']);
    expect(busPermissions('content-distributor').subscribe).not.toContain('>');
  });
});
