/**
 * @esp/testing: real servers for tests. No mocks of the bus.
 *
 *   import { NatsServer, NatsCluster, startNats } from '@esp/testing';
 *   let ns: NatsServer;
 *   beforeAll(async () => { ns = await NatsServer.start(); });   // JetStream, free port, temp store
 *   afterAll(() => ns.cleanup());
 */
export { NatsServer, sleep, type NatsServerOptions } from './nats-server';
export { NatsCluster } from './nats-cluster';
export { ContainerNatsServer, dockerEngineAvailable } from './nats-container';
export { findNatsServerBinary, requireNatsServerBinary, NatsServerUnavailableError } from './nats-binary';
export { startNats, type TestNats } from './start-nats';
export { waitFor } from './wait-for';
export { ChildService, type ChildServiceOptions } from './child-service';
export { LocalWebSites, type LocalWebSitesOptions } from './local-web-sites';
export { selfSignedCertificate, type SelfSignedCertificate } from './self-signed-certificate';
