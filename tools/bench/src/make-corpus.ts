/**
 * make-corpus: writes the realistic test corpus of @esp/testing into a directory and prints its statistics.
 *
 *   tsx tools/bench/src/make-corpus.ts --out /tmp/corpus --seed 42 [--scale 0.1] [--docs 300] [--large 20] [--no-huge] [--no-oversize]
 *   npm run feed -- --collection docs /tmp/corpus        # then feed it (the manifest is written beside, see --manifest)
 *
 * --manifest <file>: where manifest.json goes (default: <out>/manifest.json).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { expectationName, generateRealCorpus } from '@esp/testing';
import { fmt } from './stats';

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    seed: { type: 'string', default: '42' },
    scale: { type: 'string' },
    docs: { type: 'string' },
    large: { type: 'string' },
    'no-huge': { type: 'boolean', default: false },
    'no-oversize': { type: 'boolean', default: false },
    manifest: { type: 'string' },
  },
});
if (!values.out) {
  process.stderr.write('usage: make-corpus --out <dir> [--seed 42] [--scale 1] [--docs N] [--large 0..20] [--no-huge] [--no-oversize] [--manifest <file>]\n');
  process.exit(2);
}
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
const t0 = performance.now();
const m = await generateRealCorpus(values.out, {
  seed: Number(values.seed),
  ...(values.scale ? { scale: Number(values.scale) } : {}),
  ...(values.docs ? { docs: num(values.docs) } : {}),
  ...(values.large ? { large: num(values.large) } : {}),
  ...(values['no-huge'] ? { huge: false } : {}),
  ...(values['no-oversize'] ? { oversize: false } : {}),
  manifestFile: values.manifest ?? join(values.out, 'manifest.json'),
});
const secs = (performance.now() - t0) / 1000;
const ordinary = m.files.filter((f) => !/^(large|pdf|docx|charsets|broken|binary)\//.test(f.path)).map((f) => f.size);
ordinary.sort((a, b) => a - b);
const q = (p: number) => ordinary[Math.min(ordinary.length - 1, Math.floor(ordinary.length * p))] ?? 0;
const byExpect = new Map<string, number>();
for (const f of m.files) byExpect.set(expectationName(f.expect), (byExpect.get(expectationName(f.expect)) ?? 0) + 1);
console.log(`${m.totals.files} files, ${fmt(m.totals.bytes / 1024 / 1024, 1)} MiB in ${fmt(secs, 2)} s into ${values.out}`);
console.log(`ordinary documents: ${ordinary.length}, median ${fmt(q(0.5) / 1024, 1)} KiB, p90 ${fmt(q(0.9) / 1024, 1)} KiB`);
console.log(`expected: ${[...byExpect].map(([k, v]) => `${k} ${v}`).join(', ')}`);
