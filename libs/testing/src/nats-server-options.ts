export interface NatsServerOptions {
  /** JetStream with a store dir that survives restart() (default true). */
  jetstream?: boolean;
  /** Server name (must be unique in a cluster). */
  serverName?: string;
  /** Join or form a cluster: name and the route URLs of the other members. Binary mode only: use NatsCluster. */
  cluster?: { name: string; routes: string[]; port?: number };
  /** Client port; -1 (default) lets the server (binary) or this harness (container) pick a free one. */
  port?: number;
  /** Extra command-line arguments. */
  args?: string[];
  /** nats-server configuration text (for settings without a flag, e.g. "max_payload: 16MB"). */
  config?: string;
  /** How long to wait for the server to be ready (ms, default 15000). */
  startTimeoutMs?: number;
  /** Don't wait for /healthz (a cluster member is not healthy until its peers are up). */
  deferHealth?: boolean;
}
