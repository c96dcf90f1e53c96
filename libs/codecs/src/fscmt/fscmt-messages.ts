/**
 * Typed FSCMT messages (MS-FSCMT 2.2.3 to 2.2.5), one catalogue per receiving role, because a few commands carry
 * different data depending on who receives them (CMD_UM_ADD_ROUTE, CMD_UM_START_CRAWL_IP, CMD_UM_CONF_STATE).
 *
 *   const dict = buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_DNS_REQUEST', dspecName: 'web', site: 'www.contoso.com' });
 *   const frame = encodeFscmtFrame(dict, 1);
 *   const msg = readFscmtNodeSchedulerMessage(received.dict);
 *   if (msg.command === 'CMD_UM_DNS_REPLY') use(msg.data.addrinfo);
 *
 * Builders write PKT_CMD first, then the fields in catalogue order, strings as byte strings. Readers look keys up
 * by value (order does not matter), ignore keys they do not know, and throw FscmtShapeError naming the key
 * (`PKT_DATA (pd)[1]`) when a value has the wrong shape.
 */
import { fswcuCopyBytes } from '../fswcu/fswcu-slab';
import { FswcuDict, fswcuBytes, type FswcuValue } from '../fswcu/fswcu-value';
import { FSCMT_COMMANDS, fscmtCommandName, type FscmtCommandName } from './fscmt-commands';
import { FscmtShapeError, FscmtUnknownCommandError } from './fscmt-errors';
import { fscmtBytes, fscmtDescribe, fscmtDict, fscmtInt, fscmtRaw, fscmtText, type FscmtFieldCodec } from './fscmt-fields';
import { FSCMT_KEYS, fscmtKeyName, type FscmtKey } from './fscmt-keys';
import {
  fscmtCrawlIpGrant,
  fscmtCrawlIpRequest,
  fscmtCrawlIpStop,
  fscmtDeleteUris,
  fscmtDnsReply,
  fscmtFeedingSuspend,
  fscmtLogLine,
  fscmtPreemptSite,
  fscmtQuarantineSite,
  fscmtRefresh,
  fscmtReprocessSite,
  fscmtRoutes,
  fscmtSiteRoute,
  fscmtXmlRpcAddress,
} from './fscmt-message-data';
import { fscmtQueueEntry } from './fscmt-queue-entry';

/** One dict entry of a message: its key, how its value is coded, and whether the message may leave it out. */
export interface FscmtFieldSpec<T, Optional extends boolean> {
  key: FscmtKey;
  codec: FscmtFieldCodec<T>;
  optional: Optional;
}

type AnyFieldSpec = FscmtFieldSpec<unknown, boolean>;
type MessageSpec = Readonly<Record<string, AnyFieldSpec>>;
type Catalogue = Readonly<Partial<Record<FscmtCommandName, MessageSpec>>>;

const required = <T>(key: FscmtKey, codec: FscmtFieldCodec<T>): FscmtFieldSpec<T, false> => ({ key, codec, optional: false });
const optional = <T>(key: FscmtKey, codec: FscmtFieldCodec<T>): FscmtFieldSpec<T, true> => ({ key, codec, optional: true });

type ValueOf<F> = F extends FscmtFieldSpec<infer T, boolean> ? T : never;
type Fields<S> = { [K in keyof S as S[K] extends FscmtFieldSpec<unknown, false> ? K : never]: ValueOf<S[K]> } & {
  [K in keyof S as S[K] extends FscmtFieldSpec<unknown, false> ? never : K]?: ValueOf<S[K]>;
};
type Flatten<T> = { [K in keyof T]: T[K] };
type MessagesOf<C> = { [N in keyof C]: Flatten<{ command: N } & Fields<C[N]>> }[keyof C];

const K = FSCMT_KEYS;
const dspecName = required(K.PKT_DSPECNAME, fscmtText);
const none = {} as const;

/** Duplicate server messages (2.2.5); some are also handled by node schedulers. */
const DUPLICATE_SERVER = {
  PPDUP_ADD_OK: {
    dspecName,
    id: required(K.PKT_ID, fscmtText),
    uri: required(K.PKT_URI, fscmtText),
    ownUri: optional(K.PKT_OWNURI, fscmtText),
    ppdupId: optional(K.PKT_PPDUP_ID, fscmtText),
    dbName: optional(K.PKT_DBNAME, fscmtText),
  },
  PPDUP_ERROR: { dspecName, why: required(K.PKT_WHY, fscmtText) },
  PPDUP_ADD: {
    dspecName,
    id: required(K.PKT_ID, fscmtText),
    uri: required(K.PKT_URI, fscmtText),
    csum: required(K.PKT_CSUM, fscmtBytes),
    ppdupId: optional(K.PKT_PPDUP_ID, fscmtText),
    dbName: optional(K.PKT_DBNAME, fscmtText),
  },
  PPDUP_REMOVE: {
    dspecName,
    id: required(K.PKT_ID, fscmtText),
    uri: required(K.PKT_URI, fscmtText),
    csum: required(K.PKT_CSUM, fscmtBytes),
    ppdupId: optional(K.PKT_PPDUP_ID, fscmtText),
    dbName: optional(K.PKT_DBNAME, fscmtText),
  },
  PPDUP_REMOVE_OK: {
    dspecName,
    uri: required(K.PKT_URI, fscmtText),
    ppdupId: optional(K.PKT_PPDUP_ID, fscmtText),
    dbName: optional(K.PKT_DBNAME, fscmtText),
  },
  PPDUP_KEEPALIVE: none,
  PPDUP_KEEPALIVE_ACK: none,
  PPDUP_PROMOTE_REQ: { dspecName, csum: required(K.PKT_CSUM, fscmtBytes) },
  PPDUP_CONF_REMOVE: { dspecName, ppdupId: optional(K.PKT_PPDUP_ID, fscmtText) },
  PPDUP_SET_CONFIG: {
    config: required(K.PKT_DATA, fscmtDict),
    vclock: required(K.PKT_VCLOCK, fscmtInt),
    dspecName: optional(K.PKT_DSPECNAME, fscmtText),
  },
  PPDUP_CONFIG_ACK: { vclock: required(K.PKT_VCLOCK, fscmtInt) },
  PPDUP_CONF_REMOVE2: { dspecName },
} as const satisfies Catalogue;

const queueEntry = required(K.PKT_DATA, fscmtQueueEntry);

/** Messages handled by a node scheduler (2.2.3). */
const NODE_SCHEDULER = {
  CMD_UM_KEEPALIVE: none,
  CMD_UM_KEEPALIVE_ACK: none,
  CMD_UM_URI: { dspecName, entry: queueEntry },
  CMD_UM_URI_URG: { dspecName, entry: queueEntry },
  CMD_ADM_CONF_SUSPEND: { dspecName, state: required(K.PKT_DATA, fscmtInt) },
  CMD_ADM_CONF_RESUME: { dspecName },
  CMD_ADM_CONF_FEEDING_SUSPEND: { dspecName, data: required(K.PKT_DATA, fscmtFeedingSuspend) },
  CMD_UM_ADD_ROUTE: { dspecName, route: required(K.PKT_DATA, fscmtSiteRoute) },
  CMD_UM_ASK_ROUTE: { dspecName },
  CMD_ADM_CONF_REFRESH: { dspecName, refresh: required(K.PKT_DATA, fscmtRefresh) },
  CMD_ADM_CONF_ADD: { dspecName, dspec: required(K.PKT_DSPEC, fscmtDict), epoch: optional(K.PKT_EPOCH, fscmtInt) },
  CMD_ADM_CONF_UPDATE: { dspecName, dspec: required(K.PKT_DSPEC, fscmtDict), epoch: optional(K.PKT_EPOCH, fscmtInt) },
  CMD_ADM_CONF_REMOVE: { dspecName },
  CMD_ADM_PREEMPT_SITE: { dspecName, data: required(K.PKT_DATA, fscmtPreemptSite) },
  CMD_UM_REPROCESS_SITE: { dspecName, data: required(K.PKT_DATA, fscmtReprocessSite) },
  CMD_UM_DELETE_SITE: { dspecName, site: required(K.PKT_DATA, fscmtText) },
  CMD_UM_DELETE_URIS: { dspecName, data: required(K.PKT_DATA, fscmtDeleteUris) },
  CMD_UM_QUARANTINE_SITE: { dspecName, data: required(K.PKT_DATA, fscmtQuarantineSite) },
  CMD_UM_QUARANTINE_SITE_REQUEUE: { dspecName, data: required(K.PKT_DATA, fscmtQuarantineSite) },
  CMD_UM_DNS_REPLY: { dspecName, data: required(K.PKT_DATA, fscmtDnsReply) },
  CMD_UM_CONF_STATE: { dspecName, state: required(K.PKT_DATA, fscmtInt) },
  CMD_UM_START_CRAWL_IP: { dspecName, data: required(K.PKT_DATA, fscmtCrawlIpGrant) },
  PPDUP_ADD_OK: DUPLICATE_SERVER.PPDUP_ADD_OK,
  PPDUP_ERROR: DUPLICATE_SERVER.PPDUP_ERROR,
  PPDUP_REMOVE_OK: DUPLICATE_SERVER.PPDUP_REMOVE_OK,
  PPDUP_KEEPALIVE: none,
  PPDUP_KEEPALIVE_ACK: none,
  PPDUP_PROMOTE_REQ: DUPLICATE_SERVER.PPDUP_PROMOTE_REQ,
  PPDUP_CONFIG_ACK: DUPLICATE_SERVER.PPDUP_CONFIG_ACK,
} as const satisfies Catalogue;

/** Messages handled by the multinode scheduler (2.2.4). */
const MULTINODE_SCHEDULER = {
  CMD_UM_INIT: { nodeId: required(K.PKT_NODE_ID, fscmtText), xmlrpc: required(K.PKT_XMLRPCPRT, fscmtXmlRpcAddress) },
  CMD_UM_KEEPALIVE: none,
  CMD_UM_KEEPALIVE_ACK: none,
  CMD_UM_DNS_REQUEST: { dspecName, site: required(K.PKT_SITE, fscmtText) },
  CMD_UM_URI: { dspecName, entry: queueEntry },
  CMD_UM_STAT: { dspecName, stats: required(K.PKT_DATA, fscmtRaw) },
  CMD_UM_URI_URG: { dspecName, entry: queueEntry },
  CMD_UM_LOG: { dspecName, data: required(K.PKT_DATA, fscmtLogLine) },
  CMD_UM_ADD_ROUTE: { dspecName, routes: required(K.PKT_DATA, fscmtRoutes) },
  CMD_UM_LAST_ROUTE: { dspecName },
  CMD_UM_START_CRAWL_IP: { dspecName, data: required(K.PKT_DATA, fscmtCrawlIpRequest) },
  CMD_UM_STOP_CRAWL_IP: { dspecName, data: required(K.PKT_DATA, fscmtCrawlIpStop) },
  CMD_UM_CONF_STATE: { dspecName },
  CMD_UM_DELETE_OK: { dspecName },
} as const satisfies Catalogue;

export type FscmtNodeSchedulerMessage = MessagesOf<typeof NODE_SCHEDULER>;
export type FscmtMultinodeSchedulerMessage = MessagesOf<typeof MULTINODE_SCHEDULER>;
export type FscmtDuplicateServerMessage = MessagesOf<typeof DUPLICATE_SERVER>;

/** The keys and codecs of every message, per receiving role (for tools and documentation). */
export const FSCMT_MESSAGE_CATALOGUES = {
  nodeScheduler: NODE_SCHEDULER as Catalogue,
  multinodeScheduler: MULTINODE_SCHEDULER as Catalogue,
  duplicateServer: DUPLICATE_SERVER as Catalogue,
} as const;

export type FscmtRole = keyof typeof FSCMT_MESSAGE_CATALOGUES;

export function buildFscmtNodeSchedulerMessage(message: FscmtNodeSchedulerMessage): FswcuDict {
  return buildMessage(NODE_SCHEDULER, 'nodeScheduler', message);
}

export function buildFscmtMultinodeSchedulerMessage(message: FscmtMultinodeSchedulerMessage): FswcuDict {
  return buildMessage(MULTINODE_SCHEDULER, 'multinodeScheduler', message);
}

export function buildFscmtDuplicateServerMessage(message: FscmtDuplicateServerMessage): FswcuDict {
  return buildMessage(DUPLICATE_SERVER, 'duplicateServer', message);
}

export function readFscmtNodeSchedulerMessage(dict: FswcuDict): FscmtNodeSchedulerMessage {
  return readMessage(NODE_SCHEDULER, 'nodeScheduler', dict) as FscmtNodeSchedulerMessage;
}

export function readFscmtMultinodeSchedulerMessage(dict: FswcuDict): FscmtMultinodeSchedulerMessage {
  return readMessage(MULTINODE_SCHEDULER, 'multinodeScheduler', dict) as FscmtMultinodeSchedulerMessage;
}

export function readFscmtDuplicateServerMessage(dict: FswcuDict): FscmtDuplicateServerMessage {
  return readMessage(DUPLICATE_SERVER, 'duplicateServer', dict) as FscmtDuplicateServerMessage;
}

/** PKT_CMD of any message, with its name when the number is a known command. */
export function readFscmtCommand(dict: FswcuDict): { command: number; name: FscmtCommandName | undefined } {
  const value = dict.getText(K.PKT_CMD);
  if (value === undefined) throw new FscmtUnknownCommandError('message has no PKT_CMD ("cm") key');
  if (typeof value !== 'number') throw new FscmtUnknownCommandError(`PKT_CMD is a ${fscmtDescribe(value)}, not an int`);
  return { command: value, name: fscmtCommandName(value) };
}

const keyBytes = new Map<string, Uint8Array>();

/**
 * The key as bytes; a fresh copy each time so callers may keep or change a built dict freely. The copy is a slab
 * view (fswcuCopyBytes): a fresh ArrayBuffer per key made building a message cost more than encoding it.
 */
function keyOf(key: string): Uint8Array {
  let bytes = keyBytes.get(key);
  if (bytes === undefined) keyBytes.set(key, (bytes = fswcuBytes(key)));
  return fswcuCopyBytes(bytes);
}

/** A field of a message kind with its label for errors (`PKT_URI (ur)`). */
type FieldEntry = [name: string, field: AnyFieldSpec, label: string];

const fieldLists = new WeakMap<MessageSpec, FieldEntry[]>();

/**
 * A message's fields as a list, made once per message kind: Object.entries and the error labels per message
 * showed in profiles of the duplicate server.
 */
function fieldsOf(spec: MessageSpec): FieldEntry[] {
  let list = fieldLists.get(spec);
  if (list === undefined) fieldLists.set(spec, (list = Object.entries(spec).map(([name, field]) => [name, field, keyLabel(field.key)])));
  return list;
}

function buildMessage(catalogue: Catalogue, role: FscmtRole, message: { command: FscmtCommandName }): FswcuDict {
  const spec = catalogue[message.command];
  if (spec === undefined) throw new FscmtUnknownCommandError(`${message.command} is not a message for the ${role}`);
  const entries: Array<[FswcuValue, FswcuValue]> = [[keyOf(K.PKT_CMD), FSCMT_COMMANDS[message.command]]];
  const values = message as unknown as Record<string, unknown>;
  for (const [name, field, label] of fieldsOf(spec)) {
    const value = values[name];
    if (value === undefined) {
      if (field.optional) continue;
      throw new FscmtShapeError(name, `${message.command} needs ${name} (${label})`);
    }
    entries.push([keyOf(field.key), field.codec.write(value)]);
  }
  return new FswcuDict(entries);
}

function readMessage(catalogue: Catalogue, role: FscmtRole, dict: FswcuDict): { command: FscmtCommandName } {
  const { command, name } = readFscmtCommand(dict);
  const spec = name === undefined ? undefined : catalogue[name];
  if (name === undefined || spec === undefined) {
    throw new FscmtUnknownCommandError(`command ${command}${name ? ` (${name})` : ''} is not a message for the ${role}`);
  }
  const out: Record<string, unknown> = { command: name };
  for (const [prop, field, label] of fieldsOf(spec)) {
    const value = dict.getText(field.key);
    if (value === undefined) {
      if (field.optional) continue;
      throw new FscmtShapeError(label, `${name} requires this key`);
    }
    out[prop] = field.codec.read(value, label);
  }
  return out as { command: FscmtCommandName };
}

function keyLabel(key: FscmtKey): string {
  return `${fscmtKeyName(key) ?? key} (${key})`;
}
