import { buildFscmtDuplicateServerMessage, FswcuDict, fswcuBytes, readFscmtDuplicateServerMessage, type FscmtDuplicateServerMessage } from '@esp/codecs';
import { ManualClock } from '@esp/timers';
import { describe, expect, it } from 'vitest';
import { MemoryChecksumStore } from './checksum-store';
import { DuplicateServerMachine } from './duplicate-server-machine';

const PRIMARY = 'dup-primary';
const NS1 = 'ns1';
const csum = (n: number): Uint8Array => new Uint8Array(16).fill(n);
const config = new FswcuDict([[fswcuBytes('delay'), 1]]);

describe('a replica taken over by the node schedulers', () => {
  it('serves what the primary forwarded, and from its first direct checksum message on refuses what a primary still forwards', () => {
    const clock = new ManualClock();
    const out: Array<{ to: string; msg: FscmtDuplicateServerMessage }> = [];
    const m = new DuplicateServerMachine({ id: 'dup1r', store: new MemoryChecksumStore(), clock, send: (to, dict) => out.push({ to, msg: readFscmtDuplicateServerMessage(dict) }) });
    const send = (from: string, msg: FscmtDuplicateServerMessage): void => m.handle(from, buildFscmtDuplicateServerMessage(msg), 0);
    const forwarded = (uri: string, c: Uint8Array): FscmtDuplicateServerMessage => ({ command: 'PPDUP_ADD', dspecName: 'web', id: NS1, uri, csum: c, ppdupId: 'dup1', dbName: '/p/web.dup.sqlite' });

    send(PRIMARY, { command: 'PPDUP_SET_CONFIG', config, vclock: 1, dspecName: 'web' });
    send(PRIMARY, forwarded('http://a/1', csum(1)));
    expect(out.splice(0).map((o) => o.msg.command)).toEqual(['PPDUP_CONFIG_ACK', 'PPDUP_ADD_OK']);

    // the node scheduler moved here: the checksum the primary acknowledged keeps its owner
    send(NS1, { command: 'PPDUP_SET_CONFIG', config, vclock: 1, dspecName: 'web' });
    send('ns2', { command: 'PPDUP_ADD', dspecName: 'web', id: 'ns2', uri: 'http://b/1', csum: csum(1) });
    expect(out.splice(0).map((o) => [o.to, o.msg])).toEqual([
      [NS1, { command: 'PPDUP_CONFIG_ACK', vclock: 1 }],
      ['ns2', { command: 'PPDUP_ADD_OK', dspecName: 'web', id: 'ns2', uri: 'http://b/1', ownUri: 'http://a/1' }],
    ]);

    // a primary that was only cut off forwards again: refused, the owner stays
    send(PRIMARY, forwarded('http://c/1', csum(1)));
    expect(out.splice(0)).toMatchObject([{ to: PRIMARY, msg: { command: 'PPDUP_ERROR', dspecName: 'web' } }]);
    send('ns2', { command: 'PPDUP_ADD', dspecName: 'web', id: 'ns2', uri: 'http://b/1', csum: csum(1) });
    expect(out.splice(0)[0]!.msg).toMatchObject({ ownUri: 'http://a/1' });
  });
});
