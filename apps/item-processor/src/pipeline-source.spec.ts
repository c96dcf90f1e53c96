import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@esp/logging';
import type { PipelineConfig } from '@esp/pipeline';
import { describe, expect, it } from 'vitest';
import { PipelineSource } from './pipeline-source';
import { StatusState } from './status/status-state';

const log = createLogger('pipeline-source-test', { level: 'silent' });
const config = (name: string): PipelineConfig => ({ pipelines: { [name]: [{ type: 'utf8' }] }, default_pipeline: name });

describe('PipelineSource', () => {
  it('reloads a local file: a change is taken, a broken file keeps the previous pipelines', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pipeline-source-')), 'pipelines.json');
    writeFileSync(file, JSON.stringify(config('first')));
    const status = new StatusState();
    const source = new PipelineSource(file, status, log);
    expect([...source.current.pipelines.keys()]).toEqual(['first']);

    writeFileSync(file, JSON.stringify(config('second')));
    expect(source.reload()).toBe(true);
    expect([...source.current.pipelines.keys()]).toEqual(['second']);
    expect(source.localConfig()).toEqual(config('second'));

    writeFileSync(file, '{ not json');
    expect(source.reload()).toBe(false);
    expect([...source.current.pipelines.keys()]).toEqual(['second']);
  });

  it('a bad local configuration stops the start', () => {
    expect(() => new PipelineSource({ pipelines: { p: [{ type: 'no-such-stage' }] }, default_pipeline: 'p' } as PipelineConfig, new StatusState(), log)).toThrow();
  });

  it('once it follows a config server, a reload is that server\'s reset, and what it takes is current', async () => {
    const source = new PipelineSource(config('local'), new StatusState(), log);
    const resets: string[] = [];
    source.follow({
      reset: () => {
        resets.push('reset');
        source.take(config('from-server'));
        return Promise.resolve(true);
      },
    });
    expect(await source.reload()).toBe(true);
    expect(resets).toEqual(['reset']);
    expect([...source.current.pipelines.keys()]).toEqual(['from-server']);
    expect(() => source.take({ pipelines: { p: [{ type: 'no-such-stage' }] }, default_pipeline: 'p' } as PipelineConfig)).toThrow();
    expect([...source.current.pipelines.keys()]).toEqual(['from-server']);
  });
});
