/**
 * @esp/cli-options: the option helpers every command line of this workspace shares.
 *
 *   const port = integerOption('base-port', values['base-port'], 16000, 1, 65535);
 *   if (typeof port === 'string') return { kind: 'error', message: port };
 *   const nats = natsServers(values.nats, process.env);
 *
 * and how every service stops: stopOnSignals(log, async () => { await server.stop(); await mw.close(); }).
 * useNonIncrementalMarking() is for services that pass large buffers through a small heap (./gc-mode).
 * entryNodeArgs(entry) is how a supervisor runs an app: from source with tsx, or its build (./entry-command).
 * cliStack(argv, env, identity) is how a command line finds its home, its stack and the user's directory (./cli-stack).
 */
export { integerOption, list, natsServers } from './options';
export { natsSecurity, NATS_SECURITY_OPTIONS, NATS_SECURITY_HELP, NATS_SECURITY_ENV, type NatsSecurity } from './nats-security';
export { tryParseArgs, type CliResult } from './command-line';
export { stopOnSignals, type StopLog, type StopOnSignalsOptions } from './stop-on-signals';
export { useNonIncrementalMarking } from './gc-mode';
export { entryNodeArgs, builtEntry } from './entry-command';
export { stackEnv } from './stack-env';
export { stackState, type StackState, type StackStateName } from './stack-state';
export { cliStack, cliStackStarted, cliHome, homeLine, optionValue, userCwd, STACK_HELP, STACK_OPTIONS, DEFAULT_WAIT_FOR_NATS_S, waitForNatsMs, type CliStack, type NoStack, type HomeSource } from './cli-stack';
