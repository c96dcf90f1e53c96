import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteChecksumStore } from './sqlite-checksum-store';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SqliteChecksumStore', () => {
  it('claim adds an unknown checksum and returns the owner of a known one; a rolled back batch leaves nothing; a reopened store keeps what committed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dup-store-'));
    dirs.push(dir);
    const store = new SqliteChecksumStore(dir);
    store.setConfig('web', new Uint8Array([0x7b, 0x30]));
    const a = new Uint8Array(16).fill(1);
    const b = new Uint8Array(16).fill(2);
    store.transaction(() => {
      expect(store.claim('web', a, { uri: 'http://x/a', node: 'n1' })).toBeUndefined();
      expect(store.claim('web', a, { uri: 'http://x/a-copy', node: 'n2' })).toEqual({ uri: 'http://x/a', node: 'n1' });
    });
    expect(() =>
      store.transaction(() => {
        expect(store.claim('web', b, { uri: 'http://x/b', node: 'n1' })).toBeUndefined();
        throw new Error('the batch fails');
      }),
    ).toThrow('the batch fails');
    expect(store.get('web', b)).toBeUndefined();
    store.close();
    const again = new SqliteChecksumStore(dir);
    expect(again.get('web', a)).toEqual({ uri: 'http://x/a', node: 'n1' });
    expect(again.count('web')).toBe(1);
    again.close();
  });
});
