/**
 * bench:codecs — in one run, on the same corpus:
 *   FSWCU decode / encode MB/s against CPython's C marshal (loads / dumps(v, 0)) on the very same bytes;
 *   Cheetah operation_set encode / decode against plain msgpackr of the same objects.
 *
 *   npm run bench:codecs
 *
 * Last line: fswcu_vs_cpython=<our decode MB/s / CPython loads MB/s>. Goals: FSWCU >= 0.5, Cheetah >= 0.7.
 */
import { runCheetahBench } from './cheetah-bench';
import { runFswcuBench } from './fswcu-bench';

const fswcu = await runFswcuBench();
const cheetah = await runCheetahBench();
for (const line of [...cheetah.lines, ...fswcu.lines]) console.log(line);
const figures = { ...cheetah.metrics, ...fswcu.metrics };
for (const [k, v] of Object.entries(figures)) if (k !== 'fswcu_vs_cpython') console.log(`${k}=${v.toFixed(2)}`);
console.log(`fswcu_vs_cpython=${(figures['fswcu_vs_cpython'] ?? NaN).toFixed(2)}`);
