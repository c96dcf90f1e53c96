import { ContainerNatsServer, dockerEngineAvailable } from './nats-container';
import { findNatsServerBinary, INSTALL_HINT, NatsServerUnavailableError } from './nats-binary';
import { NatsServer, type NatsServerOptions } from './nats-server';

export interface TestNats {
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  stop(): Promise<void>;
  kill(): Promise<void>;
  restart(opts?: { hard?: boolean }): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * A NATS server for a test: the local nats-server binary by default; testcontainers when ESP_TEST_NATS=container,
 * or when there is no binary but a Docker engine answers. Neither: a clear error saying how to install nats-server.
 */
export async function startNats(opts: NatsServerOptions = {}): Promise<TestNats> {
  const mode = process.env['ESP_TEST_NATS'];
  if (mode !== 'container' && findNatsServerBinary()) return NatsServer.start(opts);
  if (await dockerEngineAvailable()) return ContainerNatsServer.start({ jetstream: opts.jetstream ?? true });
  throw new NatsServerUnavailableError(INSTALL_HINT);
}
