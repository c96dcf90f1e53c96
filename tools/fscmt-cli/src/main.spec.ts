/**
 * The CLI as a user runs it: `npx tsx tools/fscmt-cli/src/main.ts` as a subprocess from the workspace root.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeFscmtFrame,
  FswcuDict,
  FswcuFloat,
  FswcuInt64,
  FswcuTuple,
  fswcuBytes,
  type FscmtPriority,
  type FswcuValue,
} from '@esp/codecs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function run(args: string[], input: Uint8Array | string = ''): { status: number | null; stdout: Buffer; stderr: string } {
  const r = spawnSync('npx', ['tsx', 'tools/fscmt-cli/src/main.ts', ...args], {
    cwd: ROOT,
    input,
    maxBuffer: 64 * 1024 * 1024,
  });
  // npx may add its own configuration warnings; they are not the CLI's output.
  const stderr = r.stderr
    .toString('utf8')
    .split('\n')
    .filter((line) => !line.startsWith('npm warn'))
    .join('\n');
  return { status: r.status, stdout: r.stdout, stderr };
}

function hex(text: string): Uint8Array {
  return Uint8Array.from(text.trim().split(/\s+/), (h) => parseInt(h, 16));
}

/** CMD_UM_INIT of FSCMT-wire-test-vectors.md. */
const CMD_UM_INIT = hex(`
  00 00 00 55 28 02 00 00 00 7B 73 02 00 00 00 78 70 28 02 00 00 00 73 10 00 00 00 68 6F 73 74 2E
  63 6F 6E 74 6F 73 6F 2E 63 6F 6D 69 10 27 00 00 73 02 00 00 00 6D 69 73 0B 00 00 00 34 39 2D 34
  37 2D 36 37 2D 38 36 73 02 00 00 00 63 6D 69 18 00 00 00 30 69 00 00 00 00`);

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

// Every type code, including the forms only a decoder meets ('I', 'g', odd 'f' text, non-UTF-8 bytes, lone surrogates).
const leaf: fc.Arbitrary<FswcuValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((v) => new FswcuInt64(v)),
  fc.double().map((v) => new FswcuFloat(v)),
  fc.double().map((v) => new FswcuFloat(v, { binary: true })),
  fc.constantFrom(new FswcuFloat(10, { text: '10.0' }), new FswcuFloat(0.5, { text: '.5' })),
  fc.uint8Array({ maxLength: 16 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('\ud800', 'a\udfff'),
);
const { value } = fc.letrec<{ value: FswcuValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    { weight: 4, arbitrary: leaf },
    fc.array(tie('value'), { maxLength: 4 }).map((items) => new FswcuTuple(items)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 4 }).map((entries) => new FswcuDict(entries)),
  ),
}));
const frameArb = fc.record({
  entries: fc.array(fc.tuple(fc.constantFrom('cm', 'dn', 'pd', 'ur', 'vc').map(fswcuBytes), value), { maxLength: 6 }),
  priority: fc.constantFrom<FscmtPriority>(0, 1),
});

describe('fscmt CLI', () => {
  it('--help exits 0 and documents the lossless JSON mapping', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    const help = r.stdout.toString('utf8');
    for (const tag of ['"hex"', '"u"', '"long"', '"int64"', '"float"', '"double"', '"double_bits"', '"tuple"', '"dict"', 'priority']) {
      expect(help).toContain(tag);
    }
  });

  it('decode writes one JSON line per message with the command name beside its number; encode gives the bytes back', () => {
    const input = concat([CMD_UM_INIT, encodeFscmtFrame(new FswcuDict([[fswcuBytes('cm'), 10]]), 1)]);
    const decoded = run(['decode'], input);
    expect(decoded.status).toBe(0);
    const lines = decoded.stdout.toString('utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        name: 'CMD_UM_INIT',
        cmd: 24,
        priority: 0,
        dict: [
          ['xp', { tuple: ['host.contoso.com', 10000] }],
          ['mi', '49-47-67-86'],
          ['cm', 24],
        ],
      },
      { name: 'CMD_UM_KEEPALIVE', cmd: 10, priority: 1, dict: [['cm', 10]] },
    ]);
    const encoded = run(['encode'], decoded.stdout);
    expect(encoded.status).toBe(0);
    expect(new Uint8Array(encoded.stdout)).toEqual(input);
  });

  it('decode then encode reproduces a large stream of random frames exactly (every type code)', () => {
    const frames = fc.sample(frameArb, { numRuns: 400, seed: 7 });
    const pad = encodeFscmtFrame(new FswcuDict([[fswcuBytes('pd'), new Uint8Array(256 * 1024).fill(0x41)]]), 0);
    const input = concat([...frames.map((f) => encodeFscmtFrame(new FswcuDict(f.entries), f.priority)), pad, pad]);
    const decoded = run(['decode'], input);
    expect(decoded.stderr).toBe('');
    expect(decoded.stdout.toString('utf8').trimEnd().split('\n').length).toBe(frames.length + 2);
    const encoded = run(['encode'], decoded.stdout);
    expect(encoded.stderr).toBe('');
    expect(Buffer.compare(encoded.stdout, Buffer.from(input))).toBe(0);
  });

  it('decode of a truncated stream writes the good messages, then names the byte offset and exits 1', () => {
    const r = run(['decode'], concat([CMD_UM_INIT, CMD_UM_INIT.subarray(0, 50)]));
    expect(r.status).toBe(1);
    expect(r.stdout.toString('utf8').trimEnd().split('\n').length).toBe(1);
    expect(r.stderr).toMatch(/FscmtTruncatedFrameError: .*byte offset 89/);
  });

  it('decode of a bad type code and of an oversized frame names the failure and the byte offset', () => {
    const bad = CMD_UM_INIT.slice();
    bad[10] = 0x3c; // the type code of the dict's first key, at stream offset 10
    const r = run(['decode'], bad);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/FswcuBadTypeCodeError: bad FSWCU type code '<' .*byte offset 10\b/);
    bad[9] = 0x5b; // the frame tuple's first item is then a list, not the message dict
    expect(run(['decode'], bad).stderr).toMatch(/FscmtMalformedFrameError: .*not a dict.*byte offset 9\b/);
    const big = run(['decode', '--max-frame-bytes', '64'], CMD_UM_INIT);
    expect(big.status).toBe(1);
    expect(big.stderr).toMatch(/FscmtFrameTooLargeError: .*85 bytes exceeds the maximum of 64.*byte offset 0/);
  });

  it('encode of a bad line names the line, the JSON path and the byte offset where the line starts, and exits 1', () => {
    const good = '{"priority":0,"dict":[["cm",10]]}\n';
    const r = run(['encode'], `${good}\n{"priority":0,"dict":[["cm",{"float":"fast"}]]}\n`);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/line 3: .*\$\.dict\[0\]\[1\]\.float.*byte offset 35/);
    expect(new Uint8Array(r.stdout)).toEqual(encodeFscmtFrame(new FswcuDict([[fswcuBytes('cm'), 10]]), 0));
    const mismatch = run(['encode'], '{"name":"CMD_UM_INIT","priority":0,"dict":[["cm",10]]}');
    expect(mismatch.status).toBe(1);
    expect(mismatch.stderr).toMatch(/"name" is "CMD_UM_INIT" but the dict's "cm" entry is "CMD_UM_KEEPALIVE"/);
    const notJson = run(['encode'], 'hello\n');
    expect(notJson.status).toBe(1);
    expect(notJson.stderr).toMatch(/line 1: .*invalid JSON/);
  });

  it('usage errors exit 2 with the help text', () => {
    const r = run(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown argument "frobnicate"/);
    expect(r.stderr).toContain('Usage:');
  });
});
