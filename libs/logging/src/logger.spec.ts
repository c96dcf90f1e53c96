import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

describe('createLogger', () => {
  it('writes JSON lines carrying the component and the bound ids', async () => {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (c: Buffer) => chunks.push(c.toString()));
    const log = createLogger('indexer', { node: 'n1' }, { level: 'info', destination: out });
    log.info({ session: 7 }, 'hello');
    log.debug('not at info level');
    await new Promise((r) => setImmediate(r));
    const lines = chunks.join('').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ component: 'indexer', node: 'n1', session: 7, msg: 'hello', level: 30 });
  });
});
