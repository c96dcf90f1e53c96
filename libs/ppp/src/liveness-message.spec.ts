import { describe, expect, it } from 'vitest';
import { encodeFrames } from './frames';
import { decodeLivenessMessage, encodeLivenessMessage } from './liveness-message';
import { HEARTBEAT_FRAME, READY_FRAME } from './protocol';

const b = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('liveness message [peer name, READY | HEARTBEAT]', () => {
  it('round trip - a name as a string or as bytes', () => {
    expect(decodeLivenessMessage(encodeLivenessMessage('ip-1', READY_FRAME))).toEqual({ kind: 'ready', name: 'ip-1' });
    expect(decodeLivenessMessage(encodeLivenessMessage(b('ip-ü'), HEARTBEAT_FRAME))).toEqual({ kind: 'heartbeat', name: 'ip-ü' });
  });

  it('anything else is malformed, with the reason, and never throws', () => {
    const cases: Uint8Array[] = [
      Uint8Array.of(0, 0), // truncated length
      Uint8Array.of(0, 0, 0, 9, 1), // frame longer than the message
      encodeFrames([b('ip-1')]), // no PPP frame
      encodeFrames([new Uint8Array(0), READY_FRAME]), // no name
      encodeFrames([b('ip-1'), Uint8Array.of(3)]), // neither READY nor HEARTBEAT
      encodeFrames([b('ip-1'), b('addr'), new Uint8Array(0), b('content')]), // a request
    ];
    const reasons = cases.map((c) => {
      const m = decodeLivenessMessage(c);
      return m.kind === 'malformed' ? m.reason : `not malformed: ${m.kind}`;
    });
    expect(reasons.every((r) => !r.startsWith('not malformed'))).toBe(true);
    expect(reasons[3]).toBe('no peer name');
    expect(reasons[5]).toMatch(/request or reply/);
  });
});
