import type { NatsServerOptions } from './nats-server-options';

/** A NatsServer option that container mode cannot honour; `option` names it. */
export class NatsContainerOptionError extends Error {
  override name = 'NatsContainerOptionError';
  constructor(
    readonly option: string,
    reason: string,
  ) {
    super(`NatsServer option ${option} is not supported with ESP_TEST_NATS=container: ${reason}`);
  }
}

// Flags that name files on this machine (the container cannot read them) or listeners (container mode owns the
// ports it publishes, so that a restart comes back on the same host ports).
const OWNED_FLAGS = new Set([
  '-c', '--config', '-sd', '--store_dir', '-l', '--log', '--log_file', '-P', '--pid', '--ports_file_dir',
  '--tls', '--tlscert', '--tlskey', '--tlscacert', '--tlsverify',
  '-a', '--addr', '--net', '-p', '--port', '-m', '--http_port', '-ms', '--https_port',
  '--client_advertise', '--cluster', '--cluster_listen', '--routes', '--cluster_name', '--cluster_advertise',
]);

// Configuration keys of the same two kinds, plus listeners that would need ports of their own.
const OWNED_CONFIG_KEYS = [
  'include', 'cert_file', 'key_file', 'ca_file', 'store_dir', 'pid_file', 'ports_file_dir', 'log_file',
  'listen', 'host', 'net', 'port', 'http', 'http_port', 'https', 'https_port', 'monitor_port',
  'cluster', 'gateway', 'leafnodes', 'websocket', 'mqtt', 'tls',
];
const CONFIG_KEY = new RegExp(String.raw`(?:^|[{,])\s*(${OWNED_CONFIG_KEYS.join('|')})\s*(?:[:=]|\{|[ \t]+\S)`, 'm');

/** Throws NatsContainerOptionError for the first option container mode cannot honour. */
export function checkContainerOptions(opts: NatsServerOptions): void {
  if (opts.cluster) {
    throw new NatsContainerOptionError('"cluster"', 'routes to 127.0.0.1 ports do not reach other containers; start a cluster with NatsCluster.start(), which puts its members on one Docker network');
  }
  if (opts.port !== undefined && opts.port !== -1 && !(Number.isInteger(opts.port) && opts.port > 0 && opts.port < 65536)) {
    throw new NatsContainerOptionError(`"port" (${opts.port})`, 'a published host port must be -1 (pick a free one) or 1-65535');
  }
  for (const arg of opts.args ?? []) {
    const [flag = arg] = arg.split('=');
    if (OWNED_FLAGS.has(flag)) {
      throw new NatsContainerOptionError(`"args" (${flag})`, 'it names a file of this machine or a listener, which container mode owns');
    }
  }
  if (opts.config !== undefined) {
    const text = opts.config
      .split('\n')
      .filter((l) => !/^\s*(#|\/\/)/.test(l))
      .join('\n');
    const key = CONFIG_KEY.exec(text)?.[1];
    if (key) {
      throw new NatsContainerOptionError(`"config" (${key})`, 'it names a file of this machine or a listener, which container mode owns');
    }
  }
}
