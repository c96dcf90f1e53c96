import { PassThrough } from 'node:stream';
import { INTERNAL_PORT_OFFSET, processorServerInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { Middleware, serveNameServer } from '@esp/middleware';
import { NatsServer, sleep, waitFor } from '@esp/testing';
import { ManualClock } from '@esp/timers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startItemProcessor, type ItemProcessor, type ItemProcessorOptions } from '../src/item-processor';
import { FakeDistributor } from './fakes';

const REGISTER = (n: string) => [`master.register_procserver(${n})`, `master.assign_dispatcher(${n})`, `handler.register_procserver(${n})`];
const UNREGISTER_ON_STOP = (n: string) => [`handler.unregister_procserver(${n})`, `master.unregister_procserver(${n})`];
const UNREGISTER_ON_LEASE = (n: string) => [`master.unregister_procserver(${n})`, `handler.unregister_procserver(${n})`];

/** A pino logger whose JSON lines the test can read. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const out = new PassThrough();
  out.on('data', (c: Buffer) => {
    for (const l of c.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
  });
  return { logger: createLogger('item-processor', {}, { level: 'debug', destination: out }), lines };
}

describe('item processor registration with a content distributor (MS-FSDPD 3.4) over a real nats-server', () => {
  let ns: NatsServer;
  let nameServer: Middleware;
  let cdMw: Middleware;
  const running: ItemProcessor[] = [];

  const start = async (name: string, extra: Partial<ItemProcessorOptions> = {}) => {
    const ip = await startItemProcessor({
      nats: ns.url,
      name,
      host: 'ip-host',
      statusListen: '127.0.0.1',
      retry: { initialMs: 20, maxMs: 200 },
      callTimeoutMs: 3000,
      ...extra,
    });
    running.push(ip);
    return ip;
  };

  beforeAll(async () => {
    ns = await NatsServer.start();
    nameServer = await Middleware.connect({ name: 'name-server', servers: ns.url });
    await serveNameServer(nameServer);
    cdMw = await Middleware.connect({ name: 'fake-content-distributor', servers: ns.url, host: 'cd-host' });
  });
  afterAll(async () => {
    await Promise.all(running.map((ip) => ip.stop()));
    await cdMw?.close();
    await nameServer?.close();
    await ns?.cleanup();
  });

  it('initialization follows 3.4.3 in order; stop unregisters as 4.1.5 says (procserver_handler, then master_dispatcher)', async () => {
    const cd = await FakeDistributor.start(cdMw, { dispatcherId: 3 });
    try {
      const ip = await start('ip-order', { basePort: 14000 });
      await ip.whenRegistered();
      expect(cd.logOf('ip-order')).toEqual(REGISTER('ip-order'));
      const reg = cd.calls.find((c) => c.method === 'register_procserver' && c.obj === 'handler')!;
      const [aor, name, hostname, pid, priority] = reg.args;
      expect(aor).toMatchObject({
        interface_type: processorServerInterface.type,
        interface_version: processorServerInterface.version,
        host: 'ip-host',
        port: 14000 + INTERNAL_PORT_OFFSET,
        object_id: `processor_server/ip-order/${process.pid}`,
      });
      expect([name, hostname, pid, priority]).toEqual(['ip-order', 'ip-host', process.pid, 0]);
      expect(ip.registration.dispatcherId).toBe(3);
      expect(ip.aor).toEqual(aor);
      await cd.processor('ip-order').__ping(); // the object the distributor was given answers

      await ip.stop();
      expect(cd.logOf('ip-order')).toEqual([...REGISTER('ip-order'), ...UNREGISTER_ON_STOP('ip-order')]);
    } finally {
      await cd.stop();
    }
  });

  it('default name is procserver_<host>_<pid>', async () => {
    const cd = await FakeDistributor.start(cdMw);
    try {
      const ip = await startItemProcessor({ nats: ns.url, host: 'h1', statusListen: '127.0.0.1', retry: { initialMs: 20, maxMs: 200 } });
      running.push(ip);
      await ip.whenRegistered();
      expect(ip.name).toBe(`procserver_h1_${process.pid}`);
      // listening on one address, it is reached there; on every interface, by its host name
      expect(ip.status_url).toBe(`http://127.0.0.1:${ip.statusPort}/RPC2`);
      const everywhere = await startItemProcessor({ nats: ns.url, host: 'h1', name: 'ip-all', statusListen: '0.0.0.0', retry: { initialMs: 20, maxMs: 200 } });
      running.push(everywhere);
      expect(everywhere.status_url).toBe(`http://h1:${everywhere.statusPort}/RPC2`);
      await everywhere.stop();
      await ip.stop();
    } finally {
      await cd.stop();
    }
  });

  it('a system exception at any step restarts initialization from the start (3.4.6)', async () => {
    const cd = await FakeDistributor.start(cdMw);
    try {
      cd.failNext('master.assign_dispatcher', 1);
      cd.failNext('handler.register_procserver', 1);
      const ip = await start('ip-restart');
      await ip.whenRegistered();
      const n = 'ip-restart';
      expect(cd.logOf(n)).toEqual([
        `master.register_procserver(${n})`,
        `master.assign_dispatcher(${n})`, // fails
        ...REGISTER(n).slice(0, 3), // handler.register_procserver fails
        ...REGISTER(n),
      ]);
      expect(ip.registration.registrations).toBe(1);
      await ip.stop();
    } finally {
      await cd.stop();
    }
  });

  it('no distributor yet: keeps retrying with backoff and says so; registers once one is bound', async () => {
    const { logger, lines } = capturedLogger();
    const ip = await start('ip-early', { logger });
    await waitFor(() => lines.filter((l) => /found nothing bound yet/.test(String(l['msg']))).length >= 3, { what: 'three retries logged' });
    expect(ip.registration.isRegistered).toBe(false);
    const retry = lines.find((l) => /found nothing bound yet/.test(String(l['msg'])))!;
    expect(retry).toMatchObject({ level: 40, step: 'resolve master_dispatcher at esp/subsystems/processing/dispatcher', retry_in_ms: expect.any(Number) });
    const cd = await FakeDistributor.start(cdMw);
    try {
      await ip.whenRegistered();
      expect(cd.logOf('ip-early')).toEqual(REGISTER('ip-early'));
      await ip.stop();
    } finally {
      await cd.stop();
    }
  });

  it('assign_dispatcher returning 1 with nothing bound at .../dispatcher/1 ("none available") is retried until a handler is bound', async () => {
    const cd = await FakeDistributor.start(cdMw, { dispatcherId: 1, bindHandler: false });
    try {
      const ip = await start('ip-none');
      await cd.waitForCalls('ip-none', 6); // two rounds of register_procserver + assign_dispatcher, nothing more
      expect(ip.registration.isRegistered).toBe(false);
      expect(new Set(cd.logOf('ip-none'))).toEqual(new Set(REGISTER('ip-none').slice(0, 2)));
      await cd.bindHandler();
      await ip.whenRegistered();
      expect(cd.logOf('ip-none').slice(-1)).toEqual(['handler.register_procserver(ip-none)']);
      await ip.stop();
    } finally {
      await cd.stop();
    }
  });

  it('Reregistration Lease: expiring while idle unregisters (master, then handler, 3.4.5) and registers again; activity defers it', async () => {
    const cd = await FakeDistributor.start(cdMw);
    const clock = new ManualClock();
    try {
      const n = 'ip-lease';
      const ip = await start(n, { clock, reregistrationLeaseMs: 180_000 });
      await ip.whenRegistered();
      clock.advance(179_999);
      await sleep(50);
      expect(cd.logOf(n)).toEqual(REGISTER(n));
      clock.advance(1);
      await waitFor(() => ip.registration.registrations === 2, { what: 'second registration' });
      expect(cd.logOf(n)).toEqual([...REGISTER(n), ...UNREGISTER_ON_LEASE(n), ...REGISTER(n)]);

      ip.registration.noteActivity(); // a batch was processed during this lease: no reregistration at its end
      clock.advance(180_000);
      await sleep(50);
      expect(ip.registration.registrations).toBe(2);
      clock.advance(180_000); // idle for a whole lease
      await waitFor(() => ip.registration.registrations === 3, { what: 'third registration' });
      expect(cd.logOf(n)).toEqual([...REGISTER(n), ...UNREGISTER_ON_LEASE(n), ...REGISTER(n), ...UNREGISTER_ON_LEASE(n), ...REGISTER(n)]);
      await ip.stop();
      expect(cd.logOf(n).slice(-2)).toEqual(UNREGISTER_ON_STOP(n));
    } finally {
      await cd.stop();
    }
  });

  it('a short real-time lease (as --reregistration-lease sets) reregisters on its own', async () => {
    const cd = await FakeDistributor.start(cdMw);
    try {
      const ip = await start('ip-short', { reregistrationLeaseMs: 150 });
      await waitFor(() => ip.registration.registrations >= 3, { what: 'two reregistrations', timeoutMs: 5000 });
      expect(cd.logOf('ip-short').slice(0, 11)).toEqual([...REGISTER('ip-short'), ...UNREGISTER_ON_LEASE('ip-short'), ...REGISTER('ip-short'), ...UNREGISTER_ON_LEASE('ip-short'), `master.register_procserver(ip-short)`]);
      await ip.stop();
    } finally {
      await cd.stop();
    }
  });

  it('processor_server::reassign reregisters; the distributor restarting (new objects) is followed', async () => {
    const cd = await FakeDistributor.start(cdMw);
    const n = 'ip-reassign';
    const ip = await start(n);
    await ip.whenRegistered();
    await cd.processor(n).reassign();
    await waitFor(() => ip.registration.registrations === 2, { what: 'reregistered' });
    expect(cd.logOf(n)).toEqual([...REGISTER(n), ...UNREGISTER_ON_LEASE(n), ...REGISTER(n)]);
    // the distributor goes away and a new one comes: the next lease expiry (or reassign) finds it
    await cd.stop();
    const cd2 = await FakeDistributor.start(cdMw, { dispatcherId: 2 });
    try {
      ip.registration.restart('test');
      await waitFor(() => ip.registration.registrations === 3, { what: 'registered with the new distributor' });
      expect(cd2.logOf(n)).toEqual(REGISTER(n));
      expect(ip.registration.dispatcherId).toBe(2);
      await ip.stop();
      expect(cd2.logOf(n).slice(-2)).toEqual(UNREGISTER_ON_STOP(n));
    } finally {
      await cd2.stop();
    }
  });

  it('an idle processor notices within a heartbeat interval that its procserver_handler is gone (a master change) and registers with the distributor there now (3.4.6)', async () => {
    const cd = await FakeDistributor.start(cdMw);
    const n = 'ip-handler-gone';
    const { logger, lines } = capturedLogger();
    const ip = await start(n, { heartbeatMs: 100, logger });
    await ip.whenRegistered();
    await cd.stop();
    const cd2 = await FakeDistributor.start(cdMw, { dispatcherId: 2 });
    try {
      const t0 = Date.now();
      await waitFor(() => ip.registration.registrations === 2, { what: 'registered with the new distributor', timeoutMs: 5000 });
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(ip.registration.dispatcherId).toBe(2);
      expect(cd2.logOf(n)).toEqual(REGISTER(n));
      expect(lines.some((l) => l['msg'] === 'reregistering' && String(l['reason']).includes('procserver_handler is gone'))).toBe(true);
      await ip.stop();
    } finally {
      await cd2.stop();
    }
  });

  it('stop while still waiting for a distributor returns at once and calls nobody', async () => {
    const ip = await start('ip-give-up');
    await sleep(100);
    const t0 = Date.now();
    await ip.stop();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(ip.registration.isRegistered).toBe(false);
  });
});
