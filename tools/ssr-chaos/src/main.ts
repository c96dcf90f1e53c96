/**
 * npm run ssr:chaos [-- --artifacts 10000 --concurrency 32 --report-dir .]
 *
 * 5 ssr-node processes, kills and a rolling upgrade (see chaos.ts); prints what was lost in each phase and exits 1
 * if anything was lost that should not have been, a timer fired twice or never, or a zombie came back.
 */
import { parseArgs } from 'node:util';
import { runChaos } from './chaos';

const { values } = parseArgs({
  options: {
    artifacts: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '32' },
    'report-dir': { type: 'string', default: process.cwd() },
    phases: { type: 'string', default: 'ABCD' },
  },
});
const artifacts = Number(values.artifacts);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(artifacts) || artifacts < 50 || !Number.isInteger(concurrency) || concurrency < 1) {
  process.stderr.write('ssr-chaos: --artifacts must be an integer >= 50, --concurrency >= 1\n');
  process.exit(2);
}
const t0 = Date.now();
const report = await runChaos({ artifacts, concurrency, reportDir: values['report-dir'], phases: values.phases });
process.stdout.write(`ssr-chaos: ${report.pass ? 'PASS' : 'FAIL'} in ${Math.round((Date.now() - t0) / 1000)} s\n`);
process.exit(report.pass ? 0 : 1);
