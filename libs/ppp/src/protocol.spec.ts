import { describe, expect, it } from 'vitest';
import { parseReply, parseRequest, failFrames, replyFrames } from './client-link';
import { PppQueueFull } from './errors';
import { parsePppMessage } from './protocol';

const b = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('parsePppMessage', () => {
  it('READY and HEARTBEAT are single one-byte frames', () => {
    expect(parsePppMessage([Uint8Array.of(1)]).kind).toBe('ready');
    expect(parsePppMessage([Uint8Array.of(2)]).kind).toBe('heartbeat');
    expect(parsePppMessage([Uint8Array.of(3)]).kind).toBe('malformed');
    expect(parsePppMessage([Uint8Array.of(1, 1)]).kind).toBe('malformed');
  });

  it('REQUEST/REPLY - address stack, empty delimiter, content', () => {
    const m = parsePppMessage([b('c1'), b('c2'), new Uint8Array(0), b('hello'), b('world')]);
    expect(m).toEqual({ kind: 'envelope', envelope: [b('c1'), b('c2')], content: [b('hello'), b('world')] });
    expect(parsePppMessage([new Uint8Array(0), b('x')])).toEqual({ kind: 'envelope', envelope: [], content: [b('x')] });
  });

  it('REQUEST without delimiter or content is malformed', () => {
    expect(parsePppMessage([b('a'), b('b')]).kind).toBe('malformed');
    expect(parsePppMessage([b('a'), new Uint8Array(0)]).kind).toBe('malformed');
  });
});

describe('client link', () => {
  it('a FAIL reply is rebuilt as the same error class', () => {
    expect(() => parseReply(failFrames(new PppQueueFull('full')))).toThrow(PppQueueFull);
    expect(parseReply(replyFrames([b('ok')]))).toEqual([b('ok')]);
    expect(() => parseRequest([b('x')])).toThrow(/empty delimiter/);
  });
});
