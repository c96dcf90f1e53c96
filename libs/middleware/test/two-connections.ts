/**
 * For tests of RawBus against a real nats-server: one server (no JetStream) and two middleware connections to it,
 * `<name>-a` and `<name>-b`, made before the tests of the file and closed after them. `take` gets them once made.
 *
 *   let a: Middleware;
 *   withTwoConnections('pub', (c) => ({ a, b, ns } = c));
 */
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll } from 'vitest';
import { Middleware } from '../src';

export interface TwoConnections {
  ns: NatsServer;
  a: Middleware;
  b: Middleware;
}

export function withTwoConnections(name: string, take: (c: TwoConnections) => void): void {
  let c: Partial<TwoConnections> = {};
  beforeAll(async () => {
    const ns = await NatsServer.start({ jetstream: false });
    c = { ns };
    c.a = await Middleware.connect({ name: `${name}-a`, servers: ns.url });
    c.b = await Middleware.connect({ name: `${name}-b`, servers: ns.url });
    take(c as TwoConnections);
  });
  afterAll(async () => {
    await c.a?.close();
    await c.b?.close();
    await c.ns?.cleanup();
  });
}
