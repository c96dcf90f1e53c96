/**
 * Where the multinode scheduler's crawl configuration comes from: the files named with --config, and every *.xml
 * file of --config-dir (in name order), read again on each reload. The admin API writes a collection's crawl into
 * the directory as <dir>/<collection>.xml, so what it creates survives a restart and a reload like a file an
 * operator wrote.
 *
 *   const source = new CrawlConfigSource(['crawl.xml'], '.esp/config/crawl');
 *   const collections = source.load();      // throws CrawlConfigFileError
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CollectionConfig } from './collection-types';
import { loadCollections } from './collections';

export class CrawlConfigSource {
  constructor(
    readonly files: string[],
    readonly dir: string | undefined,
  ) {
    if (dir) mkdirSync(dir, { recursive: true });
  }

  /** The configuration files, as of now. */
  paths(): string[] {
    if (!this.dir) return [...this.files];
    const inDir = readdirSync(this.dir)
      .filter((f) => f.endsWith('.xml'))
      .sort()
      .map((f) => join(this.dir as string, f));
    return [...this.files, ...inDir];
  }

  /** Every collection of every file, checked (a name defined twice is an error). */
  load(): CollectionConfig[] {
    return loadCollections(this.paths());
  }

  /** The file a collection created through the admin API lives in (in the directory), or undefined without one. */
  fileOf(collection: string): string | undefined {
    return this.dir ? join(this.dir, `${encodeURIComponent(collection)}.xml`) : undefined;
  }
}
