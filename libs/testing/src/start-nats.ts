import { dockerEngineAvailable } from './container-engine';
import { findNatsServerBinary, INSTALL_HINT, NatsServerUnavailableError } from './nats-binary';
import { natsMode } from './nats-mode';
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
 * A NATS server for a test: the local nats-server binary by default; a container when ESP_TEST_NATS=container,
 * or when there is no binary but a Docker engine answers. Neither: a clear error saying how to install nats-server.
 */
export async function startNats(opts: NatsServerOptions = {}): Promise<TestNats> {
  if (natsMode() === 'container' || findNatsServerBinary()) return NatsServer.start(opts);
  if (await dockerEngineAvailable()) return NatsServer.startContainer(opts);
  throw new NatsServerUnavailableError(INSTALL_HINT);
}
