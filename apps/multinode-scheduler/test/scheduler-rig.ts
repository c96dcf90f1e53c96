/**
 * A multinode scheduler machine driven by hand for the specs (ManualClock, no bus): the messages it sends are kept
 * decoded, node messages are built and handled as if they came from a node's address.
 *
 *   const r = schedulerRig({ clock, keepaliveMs: 1000 });
 *   r.init('addr-a', 'n1');
 *   expect(r.take().map((o) => o.msg.command)).toContain('CMD_ADM_CONF_ADD');
 */
import {
  buildFscmtMultinodeSchedulerMessage,
  fscmtParsedUri,
  fscmtUnparsedUri,
  FswcuDict,
  readFscmtNodeSchedulerMessage,
  type FscmtMultinodeSchedulerMessage,
  type FscmtNodeSchedulerMessage,
  type FscmtQueueEntry,
} from '@esp/codecs';
import { MultinodeSchedulerMachine, type MultinodeSchedulerOptions } from '../src/multinode-scheduler-machine';

/** A DNS answer for `ip` as the machine takes it. */
export const addr = (ip: string) => ({ family: 2, socktype: 1, proto: 6, canonname: '', address: { host: ip, port: 0 } });

/** A queue entry of `uri` with no flags. */
export function queueEntry(uri: string, opts: { referrer?: string; extra?: FswcuDict } = {}): FscmtQueueEntry {
  return { uri: fscmtParsedUri(uri), referrer: fscmtUnparsedUri(opts.referrer ?? ''), uriFlags: 0, frameFlags: 0, redirects: [], queueFlags: 0, refreshCycle: 0, extra: opts.extra ?? new FswcuDict() };
}

export interface Sent {
  to: string;
  msg: FscmtNodeSchedulerMessage;
  priority: number;
}

/**
 * The machine with `opts` (send and resolve filled in unless given), and the means to talk to it. `around` wraps
 * each handled message (a store's transaction).
 */
export function schedulerRig(opts: Omit<MultinodeSchedulerOptions, 'send' | 'resolve'> & Partial<Pick<MultinodeSchedulerOptions, 'resolve'>>, around: (fn: () => void) => void = (fn) => fn()) {
  const out: Sent[] = [];
  const lookups: string[] = [];
  const m = new MultinodeSchedulerMachine({
    resolve: (host) => lookups.push(host),
    ...opts,
    send: (to, dict, priority) => out.push({ to, msg: readFscmtNodeSchedulerMessage(dict), priority }),
  });
  const send = (from: string, msg: FscmtMultinodeSchedulerMessage, priority: 0 | 1 = 0): void => around(() => m.handle(from, buildFscmtMultinodeSchedulerMessage(msg), priority));
  const init = (from: string, nodeId: string): void => send(from, { command: 'CMD_UM_INIT', nodeId, xmlrpc: { host: '127.0.0.1', port: 1 } });
  const take = (): Sent[] => out.splice(0);
  /** The URIs handed to `to` in `got` (default: what was sent since the last take). */
  const uris = (to: string, got: Sent[] = take()): string[] => got.filter((o) => o.to === to && o.msg.command === 'CMD_UM_URI').map((o) => (o.msg as { entry: FscmtQueueEntry }).entry.uri.uri);
  return { m, out, lookups, send, init, take, uris };
}
