/** Where a running (or last run) server listens, as seen from this process. */
export interface NatsEndpoints {
  /** Host clients use: 127.0.0.1 for a process; for a container, see published-ports-host.ts. */
  host: string;
  port: number;
  monitorPort: number;
  /** Route URL peers use, when clustered. */
  routeUrl?: string;
}

/**
 * What runs one nats-server: a local process or a container. NatsServer holds one and adds what both share
 * (URLs, health checks, restart as stop + launch).
 */
export interface NatsBackend {
  readonly storeDir: string;
  /** Undefined until the first launch; kept after a stop so that the URL stays known for a restart. */
  readonly endpoints: NatsEndpoints | undefined;
  readonly running: boolean;
  readonly pid: number;
  /** The container's id in container mode. */
  readonly containerId: string | undefined;
  /** Starts the server (first time, or again on the same ports and store) and returns once clients can connect. */
  launch(): Promise<void>;
  /** SIGTERM (then SIGKILL after timeoutMs) or SIGKILL; resolves when the server is gone. */
  terminate(signal: 'SIGTERM' | 'SIGKILL', timeoutMs: number): Promise<void>;
  /** Freezes the server (peers see it as dead) and thaws it. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops the server and removes everything it left (files, container). */
  cleanup(): Promise<void>;
}
