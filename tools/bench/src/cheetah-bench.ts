/**
 * Cheetah entities through msgpackr against plain msgpackr on the same data.
 *
 *   npx tsx tools/bench/src/cheetah-bench.ts
 *
 * Corpus: 200 operation_sets of 100 update_operations, each document with 6 attributes (string, string, integer,
 * long, float, string collection). Cheetah: the entity classes through `cheetahPackr` (extension per entity,
 * checked construction on decode). Plain: the same fields as plain JS objects through a default `new Packr()`
 * (msgpackr's records, its fastest mode), with no type tags for the attribute kinds. Each round encodes and decodes
 * the whole corpus with both, interleaved; the rates are from the median times of the measured rounds, the ratios
 * are the medians of the per-round ratios (a round's pair ran back to back, so load on the machine cancels out).
 */
import { pathToFileURL } from 'node:url';
import { Packr } from 'msgpackr';
import {
  DocumentEntity,
  DocumentId,
  FloatAttribute,
  IntegerAttribute,
  LongAttribute,
  OperationSet,
  StringAttribute,
  StringCollection,
  UpdateOperation,
  cheetahPackr,
} from '@esp/codecs';
import type { BenchResult } from './bench-result';

const SETS = 200;
const OPS_PER_SET = 100;
const WARMUP_ROUNDS = 5;
const ROUNDS = 15;

interface Corpus {
  entities: OperationSet[];
  plain: object[];
}

function buildCorpus(): Corpus {
  const entities: OperationSet[] = [];
  const plain: object[] = [];
  let id = 0;
  for (let s = 0; s < SETS; s++) {
    const ops: UpdateOperation[] = [];
    const plainOps: object[] = [];
    for (let o = 0; o < OPS_PER_SET; o++, id++) {
      const docId = `http://intranet.example.com/site-${s}/page-${o}.html`;
      const title = `Quarterly report ${id} for the content pipeline`;
      const size = 1000 + ((id * 7919) % 100_000);
      const modified = 1_700_000_000_000 + id * 1000;
      const score = (id % 1000) / 7;
      const tags = ['report', `team-${id % 17}`];
      ops.push(
        new UpdateOperation({
          id,
          doc: new DocumentEntity({
            doc_id: new DocumentId({ id: docId }),
            document_attributes: [
              new StringAttribute({ key: 'title', value: title }),
              new StringAttribute({ key: 'language', value: 'en' }),
              new IntegerAttribute({ key: 'size', value: size }),
              new LongAttribute({ key: 'modified', value: modified }),
              new FloatAttribute({ key: 'score', value: score }),
              new StringCollection({ key: 'tags', values: tags }),
            ],
          }),
        }),
      );
      plainOps.push({
        id,
        warnings: [],
        doc: {
          doc_id: { id: docId, routing_attributes: [] },
          document_attributes: [
            { key: 'title', value: title },
            { key: 'language', value: 'en' },
            { key: 'size', value: size },
            { key: 'modified', value: modified },
            { key: 'score', value: score },
            { key: 'tags', values: tags },
          ],
        },
      });
    }
    entities.push(new OperationSet({ completed_op_id: id - OPS_PER_SET - 1, operations: ops }));
    plain.push({ completed_op_id: id - OPS_PER_SET - 1, operations: plainOps });
  }
  return { entities, plain };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

/** Milliseconds to run `f` once over the corpus. */
function time(f: () => void): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

export async function runCheetahBench(): Promise<BenchResult> {
  const corpus = buildCorpus();
  const plainPackr = new Packr();

  const encodeAll = (packr: Packr, values: readonly object[]): Uint8Array[] => values.map((v) => packr.pack(v));
  let sink = 0;
  const decodeAll = (packr: Packr, buffers: readonly Uint8Array[]): void => {
    for (const b of buffers) sink += (packr.unpack(b) as { operations: unknown[] }).operations.length;
  };

  const cheetahBytes = encodeAll(cheetahPackr, corpus.entities);
  const plainBytes = encodeAll(plainPackr, corpus.plain);
  const cheetahSize = cheetahBytes.reduce((n, b) => n + b.byteLength, 0);
  const plainSize = plainBytes.reduce((n, b) => n + b.byteLength, 0);
  // a check that the corpus decodes to what was encoded
  const first = cheetahBytes[0] === undefined ? undefined : (cheetahPackr.unpack(cheetahBytes[0]) as unknown);
  if (!(first instanceof OperationSet) || first.operations.length !== OPS_PER_SET) {
    throw new Error('cheetah corpus does not round-trip');
  }

  const t = {
    cheetahEncode: [] as number[],
    plainEncode: [] as number[],
    cheetahDecode: [] as number[],
    plainDecode: [] as number[],
    encodeRatio: [] as number[],
    decodeRatio: [] as number[],
  };
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
    const ce = time(() => encodeAll(cheetahPackr, corpus.entities));
    const pe = time(() => encodeAll(plainPackr, corpus.plain));
    const cd = time(() => decodeAll(cheetahPackr, cheetahBytes));
    const pd = time(() => decodeAll(plainPackr, plainBytes));
    if (round >= WARMUP_ROUNDS) {
      t.cheetahEncode.push(ce);
      t.plainEncode.push(pe);
      t.cheetahDecode.push(cd);
      t.plainDecode.push(pd);
      t.encodeRatio.push(pe / ce);
      t.decodeRatio.push(pd / cd);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (sink === 0) throw new Error('nothing decoded');

  const opsPerS = (ms: number) => (SETS / ms) * 1000;
  const mbPerS = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);
  const ce = median(t.cheetahEncode);
  const pe = median(t.plainEncode);
  const cd = median(t.cheetahDecode);
  const pd = median(t.plainDecode);
  const encodeRatio = median(t.encodeRatio);
  const decodeRatio = median(t.decodeRatio);

  const metrics: Record<string, number> = {
    cheetah_encode_sets_per_s: opsPerS(ce),
    msgpackr_encode_sets_per_s: opsPerS(pe),
    cheetah_decode_sets_per_s: opsPerS(cd),
    msgpackr_decode_sets_per_s: opsPerS(pd),
    cheetah_bytes_per_set: cheetahSize / SETS,
    msgpackr_bytes_per_set: plainSize / SETS,
    cheetah_encode_vs_msgpackr: encodeRatio,
    cheetah_decode_vs_msgpackr: decodeRatio,
  };
  const f = (x: number, d = 0) => x.toFixed(d);
  const lines = [
    `cheetah corpus: ${SETS} operation_sets x ${OPS_PER_SET} update_operations x 6 attributes; ` +
      `median of ${ROUNDS} rounds after ${WARMUP_ROUNDS} warm-up`,
    `  size/set: cheetah ${f(cheetahSize / SETS)} B, msgpackr ${f(plainSize / SETS)} B`,
    `  encode: cheetah ${f(opsPerS(ce))} sets/s (${f(mbPerS(cheetahSize, ce), 1)} MB/s), ` +
      `msgpackr ${f(opsPerS(pe))} sets/s (${f(mbPerS(plainSize, pe), 1)} MB/s), ratio ${f(encodeRatio, 2)}`,
    `  decode: cheetah ${f(opsPerS(cd))} sets/s (${f(mbPerS(cheetahSize, cd), 1)} MB/s), ` +
      `msgpackr ${f(opsPerS(pd))} sets/s (${f(mbPerS(plainSize, pd), 1)} MB/s), ratio ${f(decodeRatio, 2)}`,
  ];
  return { lines, metrics };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runCheetahBench();
  for (const line of result.lines) console.log(line);
  const ratio = Math.min(
    result.metrics['cheetah_encode_vs_msgpackr'] ?? NaN,
    result.metrics['cheetah_decode_vs_msgpackr'] ?? NaN,
  );
  console.log(`cheetah_vs_msgpackr=${ratio.toFixed(2)}`);
}
