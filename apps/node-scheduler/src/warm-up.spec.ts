import { describe, expect, it } from 'vitest';
import { warmUp } from './warm-up';

describe('warmUp', () => {
  it('runs the page path and real GETs against its own loopback server, then leaves nothing open', async () => {
    const listeners = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
    const before = listeners();
    const { ms } = await warmUp(5, 2);
    expect(ms).toBeGreaterThan(0);
    // a listener left behind would keep the process alive after it is told to stop (a closed handle goes a little later)
    for (let i = 0; i < 100 && listeners() !== before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(listeners()).toBe(before);
  });
});
