import { spawnSync } from 'node:child_process';
import { findNatsServerBinary } from '@esp/testing';

/** Debian's interpreter, which the PPP and FSCMT gateway tests run: the python3 on the PATH may lack zmq. */
export const TEST_PYTHON = '/usr/bin/python3';

/** One thing the test suites need from the machine, and how to install it. */
export interface Prerequisite {
  name: string;
  install: string;
  present(env: NodeJS.ProcessEnv): boolean;
}

/** nats-server as the test harnesses find it: NATS_SERVER_BIN, else the PATH, else the usual directories. */
export function natsServerPresent(env: NodeJS.ProcessEnv): boolean {
  return findNatsServerBinary(env) !== undefined;
}

/** The interpreter to check: TEST_PYTHON, or ESP_TEST_PYTHON (the check's own tests point it at stand-ins). */
export function testPython(env: NodeJS.ProcessEnv): string {
  return env['ESP_TEST_PYTHON'] || TEST_PYTHON;
}

export function pythonZmqPresent(python = TEST_PYTHON): boolean {
  return spawnSync(python, ['-c', 'import zmq'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

/** tshark, which the TLS capture test (tools/security) runs on the stack's NATS port (ESP_TEST_TSHARK: the check's own tests). */
export function tsharkPresent(env: NodeJS.ProcessEnv): boolean {
  return spawnSync(env['ESP_TEST_TSHARK'] || 'tshark', ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

export const PREREQUISITES: readonly Prerequisite[] = [
  { name: 'nats-server', install: 'apt-get install -y nats-server', present: natsServerPresent },
  { name: 'tshark', install: 'apt-get install -y tshark', present: tsharkPresent },
  { name: `python3-zmq for ${TEST_PYTHON}`, install: 'apt-get install -y python3-zmq', present: (env) => pythonZmqPresent(testPython(env)) },
];

/** The prerequisites that are missing, in the order given. */
export function missingPrerequisites(env: NodeJS.ProcessEnv, prerequisites: readonly Prerequisite[] = PREREQUISITES): Prerequisite[] {
  return prerequisites.filter((p) => !p.present(env));
}

/** One line naming what to install, or undefined when nothing is missing. */
export function missingLine(missing: readonly Prerequisite[]): string | undefined {
  if (missing.length === 0) return undefined;
  return `npm test needs ${missing.map((p) => `${p.name} (${p.install})`).join(' and ')}`;
}
