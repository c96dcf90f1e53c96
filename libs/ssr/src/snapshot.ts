import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Packr } from 'msgpackr';
import type { Artifact } from './artifact';

/** The caches of one instance on disk, for rolling upgrades (2.21, 2.22.1 "Save and Reload"). */
export interface SsrSnapshot {
  name: string;
  savedAt: number;
  actives: Artifact[];
  replicas: Artifact[];
}

const packr = new Packr({ useRecords: false, mapsAsObjects: true });
const MAGIC = 'ssr-snapshot-1';

/** Writes atomically (temporary file, then rename): a crash while saving leaves the previous file or none. */
export async function saveSnapshot(path: string, s: SsrSnapshot): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  await writeFile(tmp, packr.pack([MAGIC, s]));
  await rename(tmp, path);
}

export async function loadSnapshot(path: string): Promise<SsrSnapshot> {
  const v = packr.unpack(await readFile(path)) as unknown;
  if (!Array.isArray(v) || v[0] !== MAGIC || typeof v[1] !== 'object' || v[1] === null) throw new Error(`${path} is not an SSR snapshot`);
  const s = v[1] as SsrSnapshot;
  if (!Array.isArray(s.actives) || !Array.isArray(s.replicas)) throw new Error(`${path}: snapshot without caches`);
  // msgpack gives Buffers back; keep bodies as plain Uint8Array views
  for (const a of [...s.actives, ...s.replicas]) a.body = new Uint8Array(a.body);
  return s;
}
