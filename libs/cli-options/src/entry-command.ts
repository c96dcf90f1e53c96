/**
 * How a supervisor (the launcher, the node controller) runs an app's entry file: the node arguments that go before the
 * app's own options.
 *
 *   spawn(process.execPath, [...entryNodeArgs('apps/indexer/src/main.ts', cwd), '--wait']);
 *
 * From source (this module itself is TypeScript, so tsx is loaded) a `.ts` entry runs with `--import tsx`. A
 * supervisor that runs as built JavaScript (the production image: no tsx, no devDependencies) runs the entry's
 * build instead, `<root>/src/<name>.ts` -> `dist/<root>/<name>.js` (the layout of the Nx `build` target), when that
 * file exists. A `.js`, `.mjs` or `.cjs` entry always runs with plain node. Node profiles and the launcher can then
 * name source entries everywhere and still run the built code in the image.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');

/** `apps/x/src/main.ts` -> `dist/apps/x/main.js`; undefined for a path that is not `<root>/src/<name>.ts`. */
export function builtEntry(entry: string): string | undefined {
  const m = /^(?:\.\/)?(.+)\/src\/([^/]+)\.ts$/.exec(entry.replaceAll('\\', '/'));
  return m ? join('dist', m[1] as string, `${m[2] as string}.js`) : undefined;
}

export function entryNodeArgs(entry: string, cwd = '.', fromSource = RUNNING_FROM_SOURCE): string[] {
  if (/\.[cm]?js$/.test(entry)) return [entry];
  if (!fromSource) {
    const built = builtEntry(entry);
    if (built && existsSync(resolve(cwd, built))) return [built];
  }
  return ['--import', 'tsx', entry];
}

