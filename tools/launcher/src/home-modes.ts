/**
 * Every file under the stack's home is its owner's only. New files are, by the umask the launcher sets (and its
 * children inherit); a home made before, with 0644 index files in 0755 folders, is tightened here at start:
 * group and others lose every permission bit on everything under it. Symbolic links are not followed.
 *
 *   ownerOnlyTree('.esp');   // → the number of files and folders changed
 */
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function ownerOnlyTree(root: string): number {
  let changed = 0;
  const visit = (path: string): void => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return; // gone meanwhile
    }
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) {
      chmodSync(path, st.mode & 0o700);
      changed++;
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return changed;
}
