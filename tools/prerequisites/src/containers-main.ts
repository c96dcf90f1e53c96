/**
 * The machine check that `npm run test:containers` runs first: with ESP_TEST_NATS=container a Docker engine must
 * answer, else one line on stderr (what is wrong, how to fix it) instead of the same error in every suite.
 *
 *   ESP_TEST_NATS=container tsx tools/prerequisites/src/containers-main.ts    # exit 0, or exit 1 and one line
 */
import { containerEngine } from '@esp/testing';

try {
  await containerEngine();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
