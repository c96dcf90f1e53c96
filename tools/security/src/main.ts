/**
 * npm run security:capture: is TLS really on? Captures the NATS port of the stack (`npm start`) on loopback while
 * documents carrying a random marker are fed and searched, and checks that the marker never appears in the
 * capture; then does the same with `--insecure`, where it must appear (the control). Needs tshark and root.
 *
 *   sudo npm run security:capture            # exit 0: the marker is only readable on the open bus
 *   sudo npm run security:capture -- --keep  # keeps both captures in the working directory
 */
import { randomBytes } from 'node:crypto';
import { captureProblem } from './capture';
import { captureFeed } from './tls-capture';

const keep = process.argv.includes('--keep');
const problem = captureProblem();
if (problem) {
  console.error(`security:capture: ${problem}`);
  process.exit(2);
}
const marker = `tlsmark${randomBytes(8).toString('hex')}`;
const t0 = performance.now();
const log = (line: string) => console.error(`security:capture: [${((performance.now() - t0) / 1000).toFixed(1)} s] ${line}`);
log(`marker ${marker}`);
// side by side: every port of the launcher's stack is picked free, and the control runs on an open server of its own
const [secured, open] = await Promise.all([
  captureFeed({ insecure: false, marker, log, ...(keep ? { keepCaptureAs: 'tls-capture-secured.pcapng' } : {}) }),
  captureFeed({ insecure: true, marker, log, ...(keep ? { keepCaptureAs: 'tls-capture-insecure.pcapng' } : {}) }),
]);
const ok = !secured.markerSeen && secured.natsInClear.length === 0 && open.markerSeen;
console.log(
  ok
    ? `TLS is on: the marker is nowhere in ${secured.captureBytes} bytes captured on the secured bus (no NATS protocol in clear but the server's INFO greeting), and in clear text on the --insecure one (${open.captureBytes} bytes)`
    : secured.markerSeen || secured.natsInClear.length > 0
      ? `FAILED: the secured bus (${secured.natsUrl}) carried clear text: ${secured.markerSeen ? 'the marker; ' : ''}${JSON.stringify(secured.natsInClear.slice(0, 3))}`
      : `INCONCLUSIVE: the marker is not in the capture of the --insecure bus either, so the capture did not see the feed`,
);
process.exit(ok ? 0 : 1);
