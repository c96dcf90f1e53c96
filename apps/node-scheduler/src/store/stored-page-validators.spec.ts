import { describe, expect, it } from 'vitest';
import { entryFor } from '../machine/queue-entries';
import { MemoryNodeStore } from './memory-node-store';
import { StoredPageValidators } from './stored-page-validators';

describe('StoredPageValidators', () => {
  it("a page's ETag / Last-Modified survive a restart on the same store; a page that lost them loses them there too", () => {
    const store = new MemoryNodeStore();
    store.queued('web', 'h:1', entryFor('http://h:1/a', '', 0, []), false);
    store.queued('web', 'h:1', entryFor('http://h:1/b', '', 0, []), false);
    const first = new StoredPageValidators(store);
    first.set('web', 'http://h:1/a', { etag: '"a1"', lastModified: 'Tue, 01 Dec 2026 10:00:00 GMT' });
    first.set('web', 'http://h:1/b', { etag: '"b1"' });
    first.delete('web', 'http://h:1/b');
    store.done('web', 'h:1', 'http://h:1/a', true, 0);
    const second = new StoredPageValidators(store, store.load().validators);
    expect(second.get('web', 'http://h:1/a')).toEqual({ etag: '"a1"', lastModified: 'Tue, 01 Dec 2026 10:00:00 GMT' });
    expect(second.get('web', 'http://h:1/b')).toBeUndefined();
  });
});
