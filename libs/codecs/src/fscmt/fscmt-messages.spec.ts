import { describe, expect, it } from 'vitest';
import { decodeFswcu } from '../fswcu/fswcu-decoder';
import { encodeFswcu } from '../fswcu/fswcu-encoder';
import { fswcuEquals } from '../fswcu/fswcu-equals';
import { FswcuDict, FswcuFloat, FswcuTuple, fswcuBytes, type FswcuValue } from '../fswcu/fswcu-value';
import { runMarshalOracle, toHex } from '../fswcu/testing/cpython-marshal';
import { fscmtCrawlConfigFromXml } from './crawl-config';
import { FSCMT_COMMANDS, fscmtCommandName, fscmtCommandNumber } from './fscmt-commands';
import { FscmtShapeError, FscmtUnknownCommandError } from './fscmt-errors';
import { FSCMT_FRAME_FLAGS, FSCMT_QUEUE_FLAGS, FSCMT_URI_FLAGS, fscmtFlagNames, fscmtFlagsFromNames } from './fscmt-flags';
import { decodeFscmtFrame, encodeFscmtFrame } from './fscmt-frame';
import { FSCMT_KEYS, fscmtKeyName } from './fscmt-keys';
import {
  buildFscmtDuplicateServerMessage,
  buildFscmtMultinodeSchedulerMessage,
  buildFscmtNodeSchedulerMessage,
  FSCMT_MESSAGE_CATALOGUES,
  readFscmtCommand,
  readFscmtDuplicateServerMessage,
  readFscmtMultinodeSchedulerMessage,
  readFscmtNodeSchedulerMessage,
  type FscmtDuplicateServerMessage,
  type FscmtMultinodeSchedulerMessage,
  type FscmtNodeSchedulerMessage,
} from './fscmt-messages';
import type { FscmtAddrinfo } from './fscmt-addrinfo';
import { fscmtQueueEntry, type FscmtQueueEntry } from './fscmt-queue-entry';
import { fscmtParsedUri, fscmtUnparsedUri } from './fscmt-uri';
import { FSCMT_CONF_STATES, FSCMT_LOG_FILES, FSCMT_REFRESH_BITS } from './fscmt-values';

// Dicts and floats compare by FSWCU value (an 'f' float read from the wire also remembers its text).
expect.addEqualityTesters([
  (a: unknown, b: unknown) =>
    (a instanceof FswcuDict && b instanceof FswcuDict) || (a instanceof FswcuFloat && b instanceof FswcuFloat)
      ? fswcuEquals(a, b)
      : undefined,
]);

const csum = Uint8Array.from([0xa9, 0xeb, 0xcb, 0x8f, 0xac, 0xbd, 0xc7, 0x43, 0x77, 0x5a, 0x1d, 0x3b, 0x52, 0x2d, 0xa8, 0xb6]);
const addrinfo: FscmtAddrinfo = { family: 2, socktype: 1, proto: 6, canonname: '', address: { host: '10.0.0.7', port: 0 } };
const addrinfo6: FscmtAddrinfo = {
  family: 10,
  socktype: 1,
  proto: 6,
  canonname: 'www.contoso.com',
  address: { host: '::1', port: 0, flowinfo: 0, scopeId: 0 },
};
const entry: FscmtQueueEntry = {
  uri: fscmtParsedUri('http://www.contoso.com/'),
  referrer: fscmtUnparsedUri(''),
  uriFlags: FSCMT_URI_FLAGS.URIF_STARTURI | FSCMT_URI_FLAGS.URIF_UNSCREENED,
  frameFlags: FSCMT_FRAME_FLAGS.URI_STATE_FRAME_PARENT,
  redirects: [{ uri: 'http://contoso.com/', kind: FSCMT_URI_FLAGS.URIF_REDIRECT_301 }],
  queueFlags: FSCMT_QUEUE_FLAGS.QF_PREPEND,
  refreshCycle: 3,
  extra: new FswcuDict([[fswcuBytes('title'), fswcuBytes('Contoso')]]),
};
const dspec = fscmtCrawlConfigFromXml(
  '<DomainSpecification name="example"><attrib name="delay" type="real">60</attrib></DomainSpecification>',
);

const NODE_SCHEDULER: FscmtNodeSchedulerMessage[] = [
  { command: 'CMD_UM_KEEPALIVE' },
  { command: 'CMD_UM_KEEPALIVE_ACK' },
  { command: 'CMD_UM_URI', dspecName: 'example', entry },
  { command: 'CMD_UM_URI_URG', dspecName: 'example', entry },
  { command: 'CMD_ADM_CONF_SUSPEND', dspecName: 'example', state: FSCMT_CONF_STATES.SUSPENDED_BY_USER },
  { command: 'CMD_ADM_CONF_RESUME', dspecName: 'example' },
  { command: 'CMD_ADM_CONF_FEEDING_SUSPEND', dspecName: 'example', data: { suspend: true, destinations: null } },
  { command: 'CMD_ADM_CONF_FEEDING_SUSPEND', dspecName: 'example', data: { suspend: false, destinations: ['default: web'] } },
  {
    command: 'CMD_UM_ADD_ROUTE',
    dspecName: 'example',
    route: { nodeId: '49-47-67-86', routingAttribute: 'contoso.com', site: 'www.contoso.com', addrinfo: [addrinfo, addrinfo6], ttl: 86400 },
  },
  {
    command: 'CMD_UM_ADD_ROUTE',
    dspecName: 'example',
    route: { nodeId: '49-47-67-86', routingAttribute: 'contoso.com', site: 'www.contoso.com', addrinfo: null, ttl: 86400 },
  },
  { command: 'CMD_UM_ASK_ROUTE', dspecName: 'example' },
  { command: 'CMD_ADM_CONF_REFRESH', dspecName: 'example', refresh: { subcollection: null, mask: FSCMT_REFRESH_BITS.REFRESH_COLLECTION } },
  { command: 'CMD_ADM_CONF_ADD', dspecName: 'example', dspec, epoch: 1 },
  { command: 'CMD_ADM_CONF_UPDATE', dspecName: 'example', dspec },
  { command: 'CMD_ADM_CONF_REMOVE', dspecName: 'example' },
  { command: 'CMD_ADM_PREEMPT_SITE', dspecName: 'example', data: { site: 'www.contoso.com', requeue: true } },
  {
    command: 'CMD_UM_REPROCESS_SITE',
    dspecName: 'example',
    data: { site: 'www.contoso.com', uriPrefix: 'http://www.contoso.com/news/', destination: null, exactMatch: false },
  },
  { command: 'CMD_UM_DELETE_SITE', dspecName: 'example', site: 'www.contoso.com' },
  {
    command: 'CMD_UM_DELETE_URIS',
    dspecName: 'example',
    data: { urisBySite: new Map([['www.contoso.com', ['http://www.contoso.com/a', 'http://www.contoso.com/b']]]), errcode: 'USR' },
  },
  { command: 'CMD_UM_QUARANTINE_SITE', dspecName: 'example', data: { site: 'www.contoso.com', seconds: 3600 } },
  { command: 'CMD_UM_QUARANTINE_SITE_REQUEUE', dspecName: 'example', data: { site: 'www.contoso.com', seconds: 60 } },
  {
    command: 'CMD_UM_DNS_REPLY',
    dspecName: '',
    data: { hostname: 'www.contoso.com', addrinfo: [addrinfo], resolvedAt: 1245064336, ttl: 86400 },
  },
  { command: 'CMD_UM_DNS_REPLY', dspecName: '', data: { hostname: 'nowhere.invalid', addrinfo: null, resolvedAt: 1245064336, ttl: 60 } },
  { command: 'CMD_UM_CONF_STATE', dspecName: 'example', state: FSCMT_CONF_STATES.ACTIVE },
  { command: 'CMD_UM_START_CRAWL_IP', dspecName: 'example', data: { ip: '10.0.0.7', site: 'www.contoso.com', storeId: 0, allowed: true } },
  { command: 'PPDUP_ADD_OK', dspecName: 'example', id: '70-86-12-20', uri: 'http://www.contoso.com/' },
  { command: 'PPDUP_ERROR', dspecName: 'example', why: 'no such collection' },
  { command: 'PPDUP_REMOVE_OK', dspecName: 'example', uri: 'http://www.contoso.com/', ppdupId: 'dup-1', dbName: '/data/dup/example' },
  { command: 'PPDUP_KEEPALIVE' },
  { command: 'PPDUP_KEEPALIVE_ACK' },
  { command: 'PPDUP_PROMOTE_REQ', dspecName: 'example', csum },
  { command: 'PPDUP_CONFIG_ACK', vclock: 1 },
];

const MULTINODE_SCHEDULER: FscmtMultinodeSchedulerMessage[] = [
  { command: 'CMD_UM_INIT', nodeId: '49-47-67-86', xmlrpc: { host: 'host.contoso.com', port: 10000 } },
  { command: 'CMD_UM_KEEPALIVE' },
  { command: 'CMD_UM_KEEPALIVE_ACK' },
  { command: 'CMD_UM_DNS_REQUEST', dspecName: 'example', site: 'www.contoso.com' },
  { command: 'CMD_UM_URI', dspecName: 'example', entry },
  { command: 'CMD_UM_STAT', dspecName: 'example', stats: new FswcuDict([[fswcuBytes('docs'), 12n ** 12n]]) },
  { command: 'CMD_UM_URI_URG', dspecName: 'example', entry },
  { command: 'CMD_UM_LOG', dspecName: 'example', data: { logFile: FSCMT_LOG_FILES.CF_SITELOGFILE, message: 'site done' } },
  {
    command: 'CMD_UM_ADD_ROUTE',
    dspecName: 'example',
    routes: [
      { routingAttribute: 'contoso.com', nodeId: '49-47-67-86' },
      { routingAttribute: 'fabrikam.com', nodeId: '70-86-12-20' },
    ],
  },
  { command: 'CMD_UM_LAST_ROUTE', dspecName: 'example' },
  { command: 'CMD_UM_START_CRAWL_IP', dspecName: 'example', data: { ip: '10.0.0.7', site: 'www.contoso.com', storeId: 2 } },
  { command: 'CMD_UM_STOP_CRAWL_IP', dspecName: 'example', data: { ip: '10.0.0.7', site: 'www.contoso.com' } },
  { command: 'CMD_UM_CONF_STATE', dspecName: 'example' },
  { command: 'CMD_UM_DELETE_OK', dspecName: 'example' },
];

const DUPLICATE_SERVER: FscmtDuplicateServerMessage[] = [
  { command: 'PPDUP_ADD_OK', dspecName: 'example', id: '70-86-12-20', uri: 'http://www.contoso.com/', ownUri: 'http://contoso.com/' },
  { command: 'PPDUP_ERROR', dspecName: 'example', why: 'database full' },
  { command: 'PPDUP_ADD', dspecName: 'example', id: '70-86-12-20', uri: 'http://www.contoso.com/', csum },
  { command: 'PPDUP_REMOVE', dspecName: 'example', id: '70-86-12-20', uri: 'http://www.contoso.com/', csum, ppdupId: 'dup-1', dbName: '/db' },
  { command: 'PPDUP_REMOVE_OK', dspecName: 'example', uri: 'http://www.contoso.com/' },
  { command: 'PPDUP_KEEPALIVE' },
  { command: 'PPDUP_KEEPALIVE_ACK' },
  { command: 'PPDUP_PROMOTE_REQ', dspecName: 'example', csum },
  { command: 'PPDUP_CONF_REMOVE', dspecName: 'example', ppdupId: 'dup-1' },
  { command: 'PPDUP_SET_CONFIG', config: dspec, vclock: 2 ** 31, dspecName: 'example' },
  { command: 'PPDUP_CONFIG_ACK', vclock: 1 },
  { command: 'PPDUP_CONF_REMOVE2', dspecName: 'example' },
];

/** Build, frame, parse the frame, read: the typed message must come back unchanged. */
function throughTheWire<M extends { command: string }>(message: M, build: (m: M) => FswcuDict, read: (d: FswcuDict) => M): M {
  const frame = encodeFscmtFrame(build(message), 0);
  return read(decodeFscmtFrame(frame).dict);
}

describe('FSCMT typed messages', () => {
  it('every command of every role has a sample here (the catalogues and the tests agree)', () => {
    expect(new Set(NODE_SCHEDULER.map((m) => m.command))).toEqual(new Set(Object.keys(FSCMT_MESSAGE_CATALOGUES.nodeScheduler)));
    expect(new Set(MULTINODE_SCHEDULER.map((m) => m.command))).toEqual(
      new Set(Object.keys(FSCMT_MESSAGE_CATALOGUES.multinodeScheduler)),
    );
    expect(new Set(DUPLICATE_SERVER.map((m) => m.command))).toEqual(new Set(Object.keys(FSCMT_MESSAGE_CATALOGUES.duplicateServer)));
  });

  for (const message of NODE_SCHEDULER) {
    it(`node scheduler ${message.command} - builds, frames and reads back unchanged`, () => {
      expect(throughTheWire(message, buildFscmtNodeSchedulerMessage, readFscmtNodeSchedulerMessage)).toEqual(message);
    });
  }
  for (const message of MULTINODE_SCHEDULER) {
    it(`multinode scheduler ${message.command} - builds, frames and reads back unchanged`, () => {
      expect(throughTheWire(message, buildFscmtMultinodeSchedulerMessage, readFscmtMultinodeSchedulerMessage)).toEqual(message);
    });
  }
  for (const message of DUPLICATE_SERVER) {
    it(`duplicate server ${message.command} - builds, frames and reads back unchanged`, () => {
      expect(throughTheWire(message, buildFscmtDuplicateServerMessage, readFscmtDuplicateServerMessage)).toEqual(message);
    });
  }

  it('built messages are what CPython reads: PKT_CMD first, byte-string keys, byte-string text', () => {
    const dict = buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_DNS_REQUEST', dspecName: 'example', site: 'www.contoso.com' });
    const [loaded] = runMarshalOracle('loads', [toHex(encodeFswcu(dict))]);
    expect(loaded).toEqual({
      dict: [
        [{ hex: '636d' }, 12],
        [{ hex: '646e' }, { hex: toHex(fswcuBytes('example')) }],
        [{ hex: '7374' }, { hex: toHex(fswcuBytes('www.contoso.com')) }],
      ],
    });
  });

  it('the queue entry is the 9-tuple starting with "WQE", URIs the 14-tuple, with None as the unparsed port', () => {
    const tuple = fscmtQueueEntry.write(entry) as FswcuTuple;
    expect(tuple.items.length).toBe(9);
    expect(tuple.items[0]).toEqual(fswcuBytes('WQE'));
    const uri = tuple.items[1] as FswcuTuple;
    expect(uri.items.length).toBe(14);
    expect(uri.items[4]).toBe(80);
    expect((tuple.items[2] as FswcuTuple).items[4]).toBe(null);
    expect(fscmtQueueEntry.read(decodeFswcu(encodeFswcu(tuple)), 'entry')).toEqual(entry);
  });

  it('PKT_VCLOCK above 2**31 goes on the wire as a long, below as an int', () => {
    const big = buildFscmtDuplicateServerMessage({ command: 'PPDUP_CONFIG_ACK', vclock: 2 ** 31 });
    const small = buildFscmtDuplicateServerMessage({ command: 'PPDUP_CONFIG_ACK', vclock: 7 });
    expect(big.getText('vc')).toBe(2n ** 31n);
    expect(small.getText('vc')).toBe(7);
  });

  it('readers accept keys in any order, unicode keys and strings, and ignore unknown keys', () => {
    const dict = new FswcuDict([
      ['st', 'www.contoso.com'],
      [fswcuBytes('zz'), null],
      [fswcuBytes('dn'), fswcuBytes('example')],
      ['cm', 12],
    ]);
    expect(readFscmtMultinodeSchedulerMessage(dict)).toEqual({ command: 'CMD_UM_DNS_REQUEST', dspecName: 'example', site: 'www.contoso.com' });
  });

  it('a command for another role is an unknown command for this one', () => {
    const dns = buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_DNS_REQUEST', dspecName: 'example', site: 'x' });
    expect(() => readFscmtNodeSchedulerMessage(dns)).toThrow(FscmtUnknownCommandError);
    expect(() => readFscmtNodeSchedulerMessage(dns)).toThrow(/CMD_UM_DNS_REQUEST/);
    expect(() => readFscmtNodeSchedulerMessage(new FswcuDict([[fswcuBytes('cm'), 99]]))).toThrow(/command 99/);
    expect(() => readFscmtNodeSchedulerMessage(new FswcuDict())).toThrow(/no PKT_CMD/);
    expect(() =>
      buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_INIT' } as unknown as FscmtNodeSchedulerMessage),
    ).toThrow(FscmtUnknownCommandError);
  });

  it('shape errors name the key and the position of the bad value', () => {
    const missing = new FswcuDict([[fswcuBytes('cm'), 24]]);
    expect(() => readFscmtMultinodeSchedulerMessage(missing)).toThrow(/PKT_NODE_ID \(mi\)/);
    const bad = buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_INIT', nodeId: 'n', xmlrpc: { host: 'h', port: 1 } });
    bad.setText('xp', new FswcuTuple([fswcuBytes('h'), fswcuBytes('not a port')]));
    let caught: unknown;
    try {
      readFscmtMultinodeSchedulerMessage(bad);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(FscmtShapeError);
    expect((caught as FscmtShapeError).path).toBe('PKT_XMLRPCPRT (xp)[1]');
    const wqe = fscmtQueueEntry.write(entry) as FswcuTuple;
    wqe.items[0] = fswcuBytes('XYZ');
    expect(() => fscmtQueueEntry.read(wqe, 'PKT_DATA')).toThrow(/"WQE"/);
    // the positions inside a URI and a redirect of an entry (labels made once per path, the same for every read)
    const pathOf = (mutate: (t: FswcuTuple) => void): string | undefined => {
      const t = fscmtQueueEntry.write({ ...entry, redirects: [{ uri: 'http://a/', kind: 1 }] }) as FswcuTuple;
      mutate(t);
      try {
        fscmtQueueEntry.read(t, 'PKT_DATA');
      } catch (err) {
        return (err as FscmtShapeError).path;
      }
      return undefined;
    };
    for (let i = 0; i < 2; i++) {
      expect(pathOf((t) => ((t.items[2] as FswcuTuple).items[5] = 7))).toBe('PKT_DATA[2][5]');
      expect(pathOf((t) => (((t.items[5] as FswcuValue[])[0] as FswcuTuple).items[1] = fswcuBytes('x')))).toBe('PKT_DATA[5][0][1]');
    }
  });

  it('CMD_UM_ADD_ROUTE to the multinode scheduler carries at most 256 routes', () => {
    const routes = Array.from({ length: 257 }, (_, i) => ({ routingAttribute: `r${i}`, nodeId: 'n' }));
    expect(() => buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'e', routes })).toThrow(RangeError);
    const dict = buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_ADD_ROUTE', dspecName: 'e', routes: routes.slice(1) });
    (dict.getText('pd') as FswcuValue[]).push(new FswcuTuple([fswcuBytes('x'), fswcuBytes('n')]));
    expect(() => readFscmtMultinodeSchedulerMessage(dict)).toThrow(FscmtShapeError);
  });
});

describe('FSCMT tables', () => {
  it('command numbers and names map both ways', () => {
    expect(FSCMT_COMMANDS.CMD_UM_INIT).toBe(24);
    expect(fscmtCommandName(52)).toBe('PPDUP_ADD');
    expect(fscmtCommandNumber('CMD_ADM_CONF_UPDATE')).toBe(0);
    expect(fscmtCommandNumber('toString')).toBeUndefined();
    const numbers = Object.values(FSCMT_COMMANDS);
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const [name, n] of Object.entries(FSCMT_COMMANDS)) expect(fscmtCommandName(n)).toBe(name);
  });

  it('PKT keys map both ways', () => {
    expect(FSCMT_KEYS.PKT_XMLRPCPRT).toBe('xp');
    expect(fscmtKeyName('cs')).toBe('PKT_CSUM');
    expect(Object.keys(FSCMT_KEYS).length).toBe(17);
  });

  it('flag masks name their bits, unknown bits as hex', () => {
    expect(fscmtFlagNames(0x2001, FSCMT_URI_FLAGS)).toEqual(['URIF_STARTURI', 'URIF_UNSCREENED']);
    expect(fscmtFlagNames(0x00020000, FSCMT_URI_FLAGS)).toEqual(['0x00020000']);
    expect(fscmtFlagsFromNames(['QF_PREPEND', 'QF_URGENT'], FSCMT_QUEUE_FLAGS)).toBe(5);
    expect(() => fscmtFlagsFromNames(['QF_NOPE'], FSCMT_QUEUE_FLAGS)).toThrow(RangeError);
  });

  it('readFscmtCommand gives number and name for any role', () => {
    expect(readFscmtCommand(new FswcuDict([[fswcuBytes('cm'), 59]]))).toEqual({ command: 59, name: 'PPDUP_SET_CONFIG' });
    expect(readFscmtCommand(new FswcuDict([[fswcuBytes('cm'), 99]]))).toEqual({ command: 99, name: undefined });
  });
});

describe('FSCMT URI structure', () => {
  it('parses as RFC 2396 / urlparse: credentials, port, params, query, fragment, IDNA host', () => {
    expect(fscmtParsedUri('HTTP://user:pw@Www.Contoso.com:8080/a/b;p=1?q=2#frag')).toMatchObject({
      scheme: 'http',
      netloc: 'user:pw@Www.Contoso.com:8080',
      credentials: 'user:pw',
      host: 'www.contoso.com',
      port: 8080,
      path: '/a/b',
      params: 'p=1',
      query: 'q=2',
      fragment: 'frag',
      parsed: 1,
    });
    expect(fscmtParsedUri('https://bücher.example/').hostIdna).toBe('xn--bcher-kva.example');
    expect(fscmtParsedUri('gopher://x/').port).toBe(null);
    expect(fscmtParsedUri('http://[::1]:81/').host).toBe('[::1]');
  });
});
