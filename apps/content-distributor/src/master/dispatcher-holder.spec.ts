import { ASSIGN_DISPATCHER_NONE_AVAILABLE } from '@esp/interfaces';
import { describe, expect, it } from 'vitest';
import { pickNode } from './dispatcher-holder';

describe('pickNode (assign_dispatcher)', () => {
  it('a restarted processor goes back to the node it had while that node lives, even when its old self still counts there', () => {
    // two nodes, one processor each; ip-1 on node 1 crashed and registers again before node 1 declared it dead
    expect(pickNode([0, 1], [], 1, 0)).toBe(1);
    expect(pickNode([0, 1], [], 1, 1)).toBe(1);
  });

  it('a node without a processor comes first; the previous node when it is one of those', () => {
    expect(pickNode([0, 1, 2], [2], 1, 0)).toBe(2);
    expect(pickNode([0, 1, 2], [1, 2], 1, 0)).toBe(1);
    expect(pickNode([0, 1, 2], [1, 2], undefined, 3)).toBe(2);
  });

  it('a new processor, or one whose node is gone, takes the next in turn; nothing when no node answers', () => {
    expect(pickNode([0, 1], [], undefined, 3)).toBe(1);
    expect(pickNode([0, 2], [], 1, 2)).toBe(0);
    expect(pickNode([], [], 1, 0)).toBe(ASSIGN_DISPATCHER_NONE_AVAILABLE);
  });
});
