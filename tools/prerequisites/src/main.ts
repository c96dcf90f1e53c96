/**
 * The machine check that `npm test` runs first, so a missing program fails at once with one line instead of deep
 * in a suite.
 *
 *   tsx tools/prerequisites/src/main.ts    # exit 0 when all is there; else exit 1 and one line on stderr
 */
import { missingLine, missingPrerequisites } from './prerequisites';

const line = missingLine(missingPrerequisites(process.env));
if (line) {
  process.stderr.write(`${line}\n`);
  process.exitCode = 1;
}
