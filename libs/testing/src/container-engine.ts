import { request } from 'node:http';
import { connect } from 'node:net';
import type { ContainerRuntimeClient } from 'testcontainers';

/** Container mode was asked for and no Docker engine answers. The message is one line saying how to fix it. */
export class ContainerEngineUnavailableError extends Error {
  override name = 'ContainerEngineUnavailableError';
}

const FIX = 'start Docker (or point DOCKER_HOST at a running engine), or unset ESP_TEST_NATS to use the nats-server binary';

function oneLine(cause: unknown): string {
  const text = cause instanceof Error ? (cause as NodeJS.ErrnoException).code ?? cause.message : String(cause);
  return text.replace(/\s+/g, ' ').trim();
}

/** Answers when the engine at DOCKER_HOST answers /_ping (unix socket), or accepts a connection (tcp). */
function ping(dockerHost: string, timeoutMs = 3000): Promise<void> {
  const url = new URL(dockerHost);
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
    const done = (err?: unknown) => {
      clearTimeout(timer);
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve();
    };
    if (url.protocol === 'unix:') {
      const req = request({ socketPath: url.pathname, path: '/_ping', method: 'GET' }, (res) => {
        res.resume();
        done(res.statusCode === 200 ? undefined : new Error(`/_ping answered ${res.statusCode}`));
      });
      req.once('error', done);
      req.end();
    } else if (url.protocol === 'tcp:') {
      const s = connect(Number(url.port || 2375), url.hostname);
      s.once('connect', () => {
        s.destroy();
        done();
      });
      s.once('error', done);
    } else {
      done(); // other transports (npipe, ssh): testcontainers decides
    }
  });
}

let engine: Promise<ContainerRuntimeClient> | undefined;

/**
 * The Docker engine of container mode, through testcontainers. When DOCKER_HOST names an engine, that engine must
 * answer: testcontainers would otherwise move on to /var/run/docker.sock, a different engine than the one asked for.
 */
export function containerEngine(): Promise<ContainerRuntimeClient> {
  engine ??= connectEngine();
  return engine;
}

async function connectEngine(): Promise<ContainerRuntimeClient> {
  const named = process.env['DOCKER_HOST']?.trim();
  const where = named || 'the default socket /var/run/docker.sock';
  if (named) {
    try {
      await ping(named);
    } catch (err) {
      throw new ContainerEngineUnavailableError(`ESP_TEST_NATS=container needs a Docker engine, and none answers at DOCKER_HOST=${named} (${oneLine(err)}): ${FIX}`);
    }
  }
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    return await getContainerRuntimeClient();
  } catch (err) {
    throw new ContainerEngineUnavailableError(`ESP_TEST_NATS=container needs a Docker engine, and none answers at ${where} (${oneLine(err)}): ${FIX}`);
  }
}

/** True when a Docker engine answers (the client alone is not enough). */
export async function dockerEngineAvailable(): Promise<boolean> {
  try {
    await containerEngine();
    return true;
  } catch {
    return false;
  }
}
