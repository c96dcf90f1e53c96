import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PIPELINE_CONFIG, PipelineConfigError, buildPipelines, loadPipelineConfig } from './config';

describe('pipeline configuration', () => {
  it('default configuration: every collection through detect, charset, pdf, docx, utf8, xml, html, title, normalize', () => {
    const set = buildPipelines(DEFAULT_PIPELINE_CONFIG);
    const p = set.forCollection('anything');
    expect(p.name).toBe('default');
    expect(p.stages.map((s) => s.name)).toEqual(['detect', 'charset', 'pdf', 'docx', 'utf8', 'xml', 'html', 'title', 'normalize']);
  });

  it('collections map to named pipelines or to their own stage list; others use default_pipeline', () => {
    const set = buildPipelines({
      pipelines: { standard: [{ type: 'utf8' }], news: [{ type: 'utf8' }, { type: 'drop', name: 'no-spam', rules: [{ attribute: 'url', pattern: 'spam' }] }] },
      default_pipeline: 'standard',
      collections: { news: 'news', blogs: [{ type: 'html' }, { type: 'normalize' }] },
    });
    expect(set.forCollection('news').name).toBe('news');
    expect(set.forCollection('blogs').stages.map((s) => s.name)).toEqual(['html', 'normalize']);
    expect(set.forCollection('web').name).toBe('standard');
    expect(set.stageNames()).toEqual(['utf8', 'no-spam', 'html', 'normalize']);
  });

  it.each([
    [{ pipelines: { default: [{ type: 'ocr' }] } }, /pipelines\.default\[0\]\.type: unknown stage type "ocr"/],
    [{ pipelines: { default: [{ type: 'drop', rules: [{ attribute: 'u', pattern: '(' }] }] } }, /pipelines\.default\[0\] \(drop\)\.rules\.0\.pattern: not a valid regular expression/],
    [{ pipelines: { default: [{ type: 'utf8', decod: true }] } }, /\(utf8\).*decod/],
    [{ pipelines: { default: [{ type: 'utf8' }, { type: 'utf8' }] } }, /stage name "utf8" is used twice/],
    [{ pipelines: { p: [] } }, /default_pipeline: no pipeline named "default"/],
    [{ pipelines: { default: [] }, collections: { news: 'nope' } }, /collections\.news: no pipeline named "nope"/],
    [{ pipelines: {}, extra: 1 }, /extra/],
  ])('refuses %j with a message that says where', (config, message) => {
    expect(() => buildPipelines(config)).toThrow(PipelineConfigError);
    expect(() => buildPipelines(config)).toThrow(message);
  });

  it('loadPipelineConfig - reads JSON; a missing file or bad JSON says which file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ip-config-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ pipelines: { default: [{ type: 'normalize' }] } }));
    expect(loadPipelineConfig(good).forCollection('x').stages[0]?.type).toBe('normalize');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ nope');
    expect(() => loadPipelineConfig(bad)).toThrow(/bad\.json is not JSON/);
    expect(() => loadPipelineConfig(join(dir, 'none.json'))).toThrow(/cannot read pipeline configuration .*none\.json/);
  });
});
