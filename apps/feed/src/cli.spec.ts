import { describe, expect, it } from 'vitest';
import { parseCli, sizeOption } from './cli';

describe('feed cli', () => {
  it('needs a collection and an input', () => {
    expect(parseCli(['x.jsonl'], {})).toMatchObject({ kind: 'error', message: '--collection is required' });
    expect(parseCli(['--collection', 'c'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/no input/) });
  });
  it('has defaults and checks numbers', () => {
    expect(parseCli(['--collection', 'c', 'a', 'b'], {})).toMatchObject({ kind: 'run', collection: 'c', inputs: ['a', 'b'], batchSize: 100, limitedResubmits: 3 });
    expect(parseCli(['--collection', 'c', '--batch-size', '0', 'a'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--batch-size/) });
  });
  it('sizes - bytes or k, m, g suffixes (binary units)', () => {
    expect(sizeOption('x', '1000', 0, 0, 2 ** 40)).toBe(1000);
    expect(sizeOption('x', '256k', 0, 0, 2 ** 40)).toBe(262_144);
    expect(sizeOption('x', '100m', 0, 0, 2 ** 40)).toBe(104_857_600);
    expect(sizeOption('x', '100MiB', 0, 0, 2 ** 40)).toBe(104_857_600);
    expect(sizeOption('x', '1.5k', 0, 0, 2 ** 40)).toBe(1536);
    expect(sizeOption('x', '2G', 0, 0, 2 ** 40)).toBe(2 * 2 ** 30);
    expect(sizeOption('x', '12b', 0, 0, 2 ** 40)).toBe(12);
    expect(sizeOption('x', undefined, 7, 0, 2 ** 40)).toBe(7);
  });
  it('sizes - junk and out of range are errors naming the option', () => {
    for (const raw of ['', 'k', '1x', '-1', '1 kk', '0x10', '1e3']) expect(sizeOption('inline-max-bytes', raw, 0, 0, 2 ** 40)).toMatch(/^--inline-max-bytes must be a size/);
    expect(sizeOption('batch-bytes', '1', 0, 1024, 2 ** 30)).toMatch(/--batch-bytes .* from 1024/);
  });
  it('byte limits and --include-binary - defaults, parsed values, errors', () => {
    expect(parseCli(['--collection', 'c', 'a'], {})).toMatchObject({ kind: 'run', batchBytes: undefined, inlineMaxBytes: 262_144, maxDocumentBytes: 104_857_600, includeBinary: false });
    expect(parseCli(['--collection', 'c', '--batch-bytes', '512k', '--inline-max-bytes', '64k', '--max-document-bytes', '10m', '--include-binary', 'a'], {})).toMatchObject({
      kind: 'run',
      batchBytes: 524_288,
      inlineMaxBytes: 65_536,
      maxDocumentBytes: 10_485_760,
      includeBinary: true,
    });
    expect(parseCli(['--collection', 'c', '--max-document-bytes', 'lots', 'a'], {})).toMatchObject({ kind: 'error', message: expect.stringMatching(/--max-document-bytes/) });
  });
  it('--help explains the inputs and the statuses', () => {
    const h = parseCli(['--help'], {});
    expect(h.kind).toBe('help');
    expect(h.kind === 'help' && h.text).toMatch(/secured/);
    for (const flag of ['--batch-bytes', '--inline-max-bytes', '--max-document-bytes', '--include-binary']) expect(h.kind === 'help' && h.text).toContain(flag);
  });
});
