import { describe, expect, it } from 'vitest';
import { PageOwnership } from './page-ownership';

const csum = (n: number): Uint8Array => new Uint8Array(16).fill(n);

describe('PageOwnership', () => {
  it('gives back the checksum of an owned page once, and nothing for a page it does not own', () => {
    const o = new PageOwnership();
    o.own('web', 'http://a/1', csum(1));
    expect(o.disown('web', 'http://a/1')).toEqual(csum(1));
    expect(o.disown('web', 'http://a/1')).toBeUndefined();
    expect(o.disown('other', 'http://a/1')).toBeUndefined();
  });

  it('hands over the duplicates of a checksum once, per collection', () => {
    const o = new PageOwnership();
    o.duplicate('web', 'http://a/2', csum(7));
    o.duplicate('web', 'http://a/3', csum(7));
    o.duplicate('web', 'http://a/4', csum(8));
    o.duplicate('news', 'http://a/2', csum(7));
    expect(o.takeDuplicates('web', csum(7)).sort()).toEqual(['http://a/2', 'http://a/3']);
    expect(o.takeDuplicates('web', csum(7))).toEqual([]);
    expect(o.takeDuplicates('news', csum(7))).toEqual(['http://a/2']);
  });

  it('forgets everything of a removed collection', () => {
    const o = new PageOwnership();
    o.own('web', 'http://a/1', csum(1));
    o.duplicate('web', 'http://a/2', csum(1));
    o.forget('web');
    expect(o.disown('web', 'http://a/1')).toBeUndefined();
    expect(o.takeDuplicates('web', csum(1))).toEqual([]);
  });

  it('a deleted site takes its duplicates with it; copies on other sites are still promoted', () => {
    const o = new PageOwnership();
    o.duplicate('web', 'http://a:81/copy', csum(1));
    o.duplicate('web', 'http://b/copy', csum(1));
    o.forgetDuplicatesOn('web', 'a:81');
    expect(o.takeDuplicates('web', csum(1))).toEqual(['http://b/copy']);
  });
});
