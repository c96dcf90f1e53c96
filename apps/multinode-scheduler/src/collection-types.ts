import type { FswcuDict } from '@esp/codecs';

/** One crawl collection the scheduler serves: its name, its crawl configuration as a dspec, and where it starts. */
export interface CollectionConfig {
  name: string;
  dspec: FswcuDict;
  startUris: string[];
}
