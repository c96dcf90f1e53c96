/**
 * A larger corpus from the demo corpus: `copies` copies of its good documents (not `broken/`), each under its own
 * folder so every document id differs. Big enough that a feed is still running when the master is killed.
 */
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function copyCorpus(corpus: string, into: string, copies: number): number {
  const entries = readdirSync(corpus).filter((e) => e !== 'broken' && !e.startsWith('.'));
  let files = 0;
  for (let i = 0; i < copies; i++) {
    const dir = join(into, `copy-${i}`);
    mkdirSync(dir, { recursive: true });
    for (const e of entries) cpSync(join(corpus, e), join(dir, e), { recursive: true });
  }
  const count = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((n, d) => n + (d.isDirectory() ? count(join(dir, d.name)) : 1), 0);
  files = count(into);
  return files;
}
