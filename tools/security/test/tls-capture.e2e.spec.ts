/**
 * TLS is really on: a capture of the NATS port of `npm start` while documents with a marker are fed and searched
 * holds neither the marker nor any NATS protocol in clear but the server's INFO greeting; the same with `--insecure` holds the
 * marker (the control: the capture did see the feed). Needs tshark and the right to capture (root); it fails, never skips, without them.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { captureProblem } from '../src/capture';
import { captureFeed } from '../src/tls-capture';

// tshark is a prerequisite of npm test (tools/prerequisites); capturing on loopback also takes root or capture rights
const problem = captureProblem();
if (problem) throw new Error(`the TLS capture test cannot run here: ${problem}`);

describe('a capture of the NATS port during a feed', () => {
  const marker = `tlsmark${randomBytes(8).toString('hex')}`;

  // the two stacks run side by side: every port of the launcher's stack is picked free
  it.concurrent('secured: the marker is nowhere in the capture, and no NATS protocol but INFO travels in clear', async () => {
    const run = await captureFeed({ insecure: false, marker });
    expect(run.markerSeen).toBe(false);
    expect(run.natsInClear).toEqual([]);
    expect(run.captureBytes).toBeGreaterThan(20_000); // the feed was captured, encrypted
  }, 120_000);

  it.concurrent('--insecure (the control): the marker is in the capture in clear text', async () => {
    const run = await captureFeed({ insecure: true, marker });
    expect(run.markerSeen).toBe(true);
    expect(run.natsInClear.length).toBeGreaterThan(0);
  }, 120_000);
});
