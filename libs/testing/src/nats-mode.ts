/** Where test NATS servers run: the local nats-server binary, or containers through testcontainers. */
export type NatsMode = 'binary' | 'container';

export class NatsModeError extends Error {
  override name = 'NatsModeError';
}

/**
 * ESP_TEST_NATS: unset, empty or "binary" runs the nats-server binary; "container" runs every server in a container.
 * Anything else is refused, so that a typo never quietly runs the binary.
 */
export function natsMode(env: NodeJS.ProcessEnv = process.env): NatsMode {
  const value = (env['ESP_TEST_NATS'] ?? '').trim();
  if (value === '' || value === 'binary') return 'binary';
  if (value === 'container') return 'container';
  throw new NatsModeError(`ESP_TEST_NATS="${value}" is not a NATS mode: use "container", or "binary" (the default)`);
}

/** The image of container mode: ESP_TEST_NATS_IMAGE, else nats:2.10-alpine. */
export function natsImage(env: NodeJS.ProcessEnv = process.env): string {
  return env['ESP_TEST_NATS_IMAGE']?.trim() || 'nats:2.10-alpine';
}
