import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtEntry, entryNodeArgs } from './entry-command';

describe('builtEntry', () => {
  it('maps <root>/src/<name>.ts to dist/<root>/<name>.js, the Nx build layout', () => {
    expect(builtEntry('apps/item-processor/src/main.ts')).toBe('dist/apps/item-processor/main.js');
    expect(builtEntry('./tools/launcher/src/ping.ts')).toBe('dist/tools/launcher/ping.js');
  });
  it('has no build for a file outside a src folder', () => {
    expect(builtEntry('scripts/x.ts')).toBeUndefined();
  });
});

describe('entryNodeArgs', () => {
  const root = mkdtempSync(join(tmpdir(), 'entry-command-'));
  mkdirSync(join(root, 'dist/apps/indexer'), { recursive: true });
  writeFileSync(join(root, 'dist/apps/indexer/main.js'), '');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('runs a TypeScript entry with tsx when the supervisor runs from source, even if a build exists', () => {
    expect(entryNodeArgs('apps/indexer/src/main.ts', root, true)).toEqual(['--import', 'tsx', 'apps/indexer/src/main.ts']);
  });
  it('runs the build of a TypeScript entry when the supervisor is itself built', () => {
    expect(entryNodeArgs('apps/indexer/src/main.ts', root, false)).toEqual(['dist/apps/indexer/main.js']);
  });
  it('falls back to tsx when the built supervisor finds no build of the entry', () => {
    expect(entryNodeArgs('apps/name-server/src/main.ts', root, false)).toEqual(['--import', 'tsx', 'apps/name-server/src/main.ts']);
  });
  it('runs a JavaScript entry with plain node', () => {
    expect(entryNodeArgs('dist/apps/indexer/main.js', root, true)).toEqual(['dist/apps/indexer/main.js']);
    expect(entryNodeArgs('tool.mjs', root, false)).toEqual(['tool.mjs']);
  });
  it('decides from source by default under the test runner (this module is TypeScript)', () => {
    expect(entryNodeArgs('apps/indexer/src/main.ts', root)).toEqual(['--import', 'tsx', 'apps/indexer/src/main.ts']);
  });
});
