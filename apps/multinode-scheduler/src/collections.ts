/**
 * Crawl collections from XML DomainSpecification files (MS-FSCMT 2.2.2.3; the mapping lives in @esp/codecs), checked
 * for what the crawl needs, with errors that name the file and the problem.
 *
 *   const collections = loadCollections(['web.xml']);   // throws CrawlConfigFileError
 */
import { readFileSync } from 'node:fs';
import { encodeFswcu, FswcuDict, fscmtCrawlConfigFromXml, type FswcuValue } from '@esp/codecs';
import type { CollectionConfig } from './collection-types';
import type { MultinodeSchedulerMachine } from './multinode-scheduler-machine';

export class CrawlConfigFileError extends Error {
  override readonly name = 'CrawlConfigFileError';
  readonly code = 'crawl_config_invalid';
}

const text = (v: FswcuValue | undefined): string | undefined =>
  v instanceof Uint8Array ? new TextDecoder().decode(v) : typeof v === 'string' ? v : undefined;

export function collectionsFromXml(xml: string, source: string): CollectionConfig[] {
  let root: FswcuDict;
  try {
    root = fscmtCrawlConfigFromXml(xml);
  } catch (err) {
    throw new CrawlConfigFileError(`${source}: ${(err as Error).message}`);
  }
  const out: CollectionConfig[] = [];
  for (const [k, v] of root.entries) {
    const name = text(k);
    if (!name) throw new CrawlConfigFileError(`${source}: a DomainSpecification has no name`);
    if (!(v instanceof FswcuDict)) throw new CrawlConfigFileError(`${source}: collection "${name}" is not a section`);
    const starts = v.getText('start_uris');
    if (starts !== undefined && !Array.isArray(starts)) throw new CrawlConfigFileError(`${source}: "${name}": start_uris must be a list-string`);
    const startUris: string[] = [];
    for (const s of (starts as FswcuValue[] | undefined) ?? []) {
      const uri = text(s) ?? '';
      try {
        const u = new URL(uri);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
      } catch {
        throw new CrawlConfigFileError(`${source}: "${name}": start URI "${uri}" is not an http(s) URL`);
      }
      startUris.push(uri);
    }
    for (const key of ['delay', 'max_doc_count', 'max_uri_recursion']) {
      const value = v.getText(key);
      if (value !== undefined && typeof value !== 'number' && !(typeof value === 'object' && value !== null && 'value' in value)) {
        throw new CrawlConfigFileError(`${source}: "${name}": ${key} must be a number`);
      }
    }
    out.push({ name, dspec: v, startUris });
  }
  if (out.length === 0) throw new CrawlConfigFileError(`${source}: no DomainSpecification`);
  return out;
}

export function loadCollections(files: string[]): CollectionConfig[] {
  const all: CollectionConfig[] = [];
  for (const file of files) {
    let xml: string;
    try {
      xml = readFileSync(file, 'utf8');
    } catch (err) {
      throw new CrawlConfigFileError(`${file}: ${(err as Error).message}`);
    }
    for (const c of collectionsFromXml(xml, file)) {
      if (all.some((o) => o.name === c.name)) throw new CrawlConfigFileError(`${file}: collection "${c.name}" is defined twice`);
      all.push(c);
    }
  }
  return all;
}

/** Brings the scheduler to a new set of collections: new ones added, changed ones updated, missing ones removed. */
export function reconcile(machine: MultinodeSchedulerMachine, next: CollectionConfig[]): { added: string[]; updated: string[]; removed: string[] } {
  const current = machine.collectionConfigs();
  const out = { added: [] as string[], updated: [] as string[], removed: [] as string[] };
  const same = (a: FswcuDict, b: FswcuDict): boolean => Buffer.from(encodeFswcu(a)).equals(Buffer.from(encodeFswcu(b)));
  for (const c of next) {
    const had = current.get(c.name);
    if (!had) {
      machine.addCollection(c.name, c.dspec, c.startUris);
      out.added.push(c.name);
    } else if (!same(had, c.dspec)) {
      machine.updateCollection(c.name, c.dspec);
      out.updated.push(c.name);
    }
  }
  for (const name of current.keys()) {
    if (next.some((c) => c.name === name)) continue;
    machine.removeCollection(name);
    out.removed.push(name);
  }
  return out;
}
