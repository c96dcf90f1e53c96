import type { StartedNatsContainer } from '@testcontainers/nats';

/**
 * The same idea as NatsServer, through testcontainers, for machines with a Docker engine and no nats-server binary
 * (or ESP_TEST_NATS=container). The container's client port is mapped to a free host port by Docker.
 */
export class ContainerNatsServer {
  private constructor(private container: StartedNatsContainer) {}

  static async start(opts: { jetstream?: boolean; image?: string } = {}): Promise<ContainerNatsServer> {
    const { NatsContainer } = await import('@testcontainers/nats');
    let c = new NatsContainer(opts.image ?? 'nats:2.10-alpine');
    if (opts.jetstream ?? true) c = c.withJetStream();
    return new ContainerNatsServer(await c.start());
  }

  get url(): string {
    return `nats://${this.container.getHost()}:${this.container.getMappedPort(4222)}`;
  }
  get port(): number {
    return this.container.getMappedPort(4222);
  }
  get running(): boolean {
    return true;
  }

  async stop(): Promise<void> {
    await this.container.stop();
  }
  async kill(): Promise<void> {
    await this.container.stop({ timeout: 0 });
  }
  async restart(): Promise<void> {
    await this.container.restart();
  }
  async cleanup(): Promise<void> {
    await this.container.stop({ timeout: 0, remove: true });
  }
}

/** True when a Docker engine answers (the client alone is not enough). */
export async function dockerEngineAvailable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}
