import { describe, expect, it } from 'vitest';
import { integerOption, list, natsServers } from './options';

describe('cli options', () => {
  it('natsServers: --nats, else NATS_URL, else the local default; comma separated', () => {
    expect(natsServers('nats://a:1, nats://b:2,', {})).toEqual(['nats://a:1', 'nats://b:2']);
    expect(natsServers(undefined, { NATS_URL: 'nats://c:3' })).toEqual(['nats://c:3']);
    expect(natsServers(undefined, {})).toEqual(['nats://127.0.0.1:4222']);
  });
  it('list drops empty items', () => {
    expect(list(' a,,b ,')).toEqual(['a', 'b']);
  });
  it('integerOption: the default when absent, the number when in range, else a message naming the flag', () => {
    expect(integerOption('n', undefined, 5, 0, 10)).toBe(5);
    expect(integerOption('n', undefined, undefined, 0, 10)).toBeUndefined();
    expect(integerOption('n', '7', 5, 0, 10)).toBe(7);
    for (const bad of ['11', '-1', '1.5', 'x', '', '1e3']) expect(integerOption('n', bad, 5, 0, 10)).toBe(`--n must be an integer from 0 to 10, got "${bad}"`);
  });
});

describe('tryParseArgs', () => {
  it('returns the typed values, or the error as a value', async () => {
    const { tryParseArgs } = await import('./command-line');
    const ok = tryParseArgs({ args: ['--n', '3', 'x'], allowPositionals: true, options: { n: { type: 'string' }, v: { type: 'boolean' } }, strict: true });
    expect('error' in ok ? ok.error : ok.values.n).toBe('3');
    expect('error' in ok ? [] : ok.positionals).toEqual(['x']);
    const bad = tryParseArgs({ args: ['--nope'], options: { n: { type: 'string' } }, strict: true });
    expect(bad).toEqual({ error: expect.stringMatching(/nope/) });
  });
});
