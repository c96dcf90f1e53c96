import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CRAWL_DEFAULTS } from '@esp/interfaces';
import { describe, expect, it } from 'vitest';
import { cliStack } from '@esp/cli-options';
import { DEFAULT_GIVE_UP_S, HELP, parseCli, parseRules, type Plan } from './cli';
import { progressLine, summaryJson, summaryText } from './report';

const env = { NATS_URL: 'nats://n:4222' };
const plan = (argv: string[], e: NodeJS.ProcessEnv = env): Plan => {
  const r = parseCli(argv, e);
  if (r.kind !== 'run') throw new Error(`not run: ${JSON.stringify(r)}`);
  return r.plan;
};
const error = (argv: string[]): string => {
  const r = parseCli(argv, env);
  if (r.kind !== 'error') throw new Error(`not an error: ${JSON.stringify(r)}`);
  return r.message;
};

describe('crawl command line', () => {
  it('a crawl: start URLs with the documented defaults (scope from the start sites, 1 s delay, depth and page bounds)', () => {
    const p = plan(['--collection', 'web', 'http://a.example/', 'https://b.example:8443/x']);
    expect(p).toMatchObject({
      action: 'crawl',
      wait: true,
      timeoutMs: undefined,
      nats: ['nats://n:4222'],
      cluster: 'default',
      mns: 'main',
      spec: { collection: 'web', start_uris: ['http://a.example/', 'https://b.example:8443/x'], include: null, exclude: null, delay_s: 1, max_depth: 10, max_doc: 1000, robots: true, sitemaps: true, refresh_min: 0 },
    });
    expect(CRAWL_DEFAULTS).toEqual({ delay_s: 1, max_depth: 10, max_doc: 1000, refresh_min: 0 });
    for (const documented of ['(default: 1)', '(default: 10)', '(default: 1000)', "the start URLs' sites"]) expect(HELP).toContain(documented);
  });

  it('a crawl with every flag', () => {
    const p = plan(['-c', 'web', '--include', 'http://a.example/docs/', '--include', 'regexp:\\.html$', '--exclude', 'suffix:.pdf', '--delay', '0.5', '--max-depth', 'none', '--max-pages', '0', '--refresh', '1440', '--no-robots', '--no-sitemaps', '--no-wait', '--timeout', '60', '--json', '--quiet', '--cluster', 'c2', '--mns', 'm2', 'http://a.example/']);
    expect(p).toMatchObject({
      action: 'crawl',
      wait: false,
      timeoutMs: 60_000,
      json: true,
      quiet: true,
      cluster: 'c2',
      mns: 'm2',
      spec: {
        include: { prefix: ['http://a.example/docs/'], suffix: [], exact: [], regexp: ['\\.html$'] },
        exclude: { prefix: [], suffix: ['.pdf'], exact: [], regexp: [] },
        delay_s: 0.5,
        max_depth: null,
        max_doc: 0,
        refresh_min: 1440,
        robots: false,
        sitemaps: false,
      },
    });
  });

  it('operator commands, each with its arguments', () => {
    expect(plan(['status'])).toMatchObject({ action: 'status', collection: '' });
    expect(plan(['status', '-c', 'web'])).toMatchObject({ action: 'status', collection: 'web' });
    const cmd = (argv: string[]) => (plan([...argv, '-c', 'web']) as Extract<Plan, { action: 'command' }>).command;
    expect(cmd(['suspend'])).toEqual({ kind: 'suspend' });
    expect(cmd(['resume'])).toEqual({ kind: 'resume' });
    expect(cmd(['refresh'])).toEqual({ kind: 'refresh' });
    expect(cmd(['delete-site', 'a.example'])).toEqual({ kind: 'delete_site', site: 'a.example' });
    expect(cmd(['delete-uris', 'http://a.example/1', 'http://a.example/2'])).toEqual({ kind: 'delete_uris', uris: ['http://a.example/1', 'http://a.example/2'] });
    expect(cmd(['quarantine', 'a.example'])).toEqual({ kind: 'quarantine', site: 'a.example', seconds: 3600, requeue: false });
    expect(cmd(['quarantine', 'a.example', '--seconds', '60', '--requeue'])).toEqual({ kind: 'quarantine', site: 'a.example', seconds: 60, requeue: true });
    expect(cmd(['preempt', 'a.example', '--requeue'])).toEqual({ kind: 'preempt', site: 'a.example', requeue: true });
    expect(cmd(['reprocess', 'http://a.example/'])).toEqual({ kind: 'reprocess', site: 'http://a.example/', uri_prefix: 'http://a.example/' });
    expect(cmd(['reprocess', 'a.example', '--prefix', 'http://a.example/news/'])).toEqual({ kind: 'reprocess', site: 'a.example', uri_prefix: 'http://a.example/news/' });
    expect(cmd(['feeding-suspend'])).toEqual({ kind: 'feeding_suspend', suspend: true });
    expect(cmd(['feeding-suspend', '--resume'])).toEqual({ kind: 'feeding_suspend', suspend: false });
    expect(cmd(['urgent', 'http://a.example/now'])).toEqual({ kind: 'urgent', uris: ['http://a.example/now'] });
  });

  it('usage errors say what is wrong', () => {
    expect(error([])).toMatch(/give start URLs/);
    expect(error(['http://a.example/'])).toMatch(/--collection/);
    expect(error(['-c', 'web', 'a.example'])).toMatch(/"a.example" is neither a command .* nor an http\(s\) URL/);
    expect(error(['-c', 'web', '--delay', 'soon', 'http://a.example/'])).toMatch(/--delay must be a number/);
    expect(error(['-c', 'web', '--max-depth', '1.5', 'http://a.example/'])).toMatch(/--max-depth must be an integer.*"none"/);
    expect(error(['-c', 'web', '--include', 'regexp:((', 'http://a.example/'])).toMatch(/--include "regexp:\(\(":/);
    expect(error(['suspend'])).toBe('suspend needs --collection <name>');
    expect(error(['delete-site', '-c', 'web'])).toBe('delete-site takes one site');
    expect(error(['urgent', 'x', '-c', 'web'])).toMatch(/"x" is not an http\(s\) URL/);
    expect(error(['--bogus'])).toMatch(/bogus/);
    expect(parseCli(['--help'], env)).toEqual({ kind: 'help', text: HELP });
  });

  it('rules: a bare value is a prefix, an empty rule is refused', () => {
    expect(parseRules(['http://x/', 'exact:http://x/a', 'suffix:.html'], 'include')).toEqual({ prefix: ['http://x/'], suffix: ['.html'], exact: ['http://x/a'], regexp: [] });
    expect(parseRules(['prefix:'], 'exclude')).toMatch(/empty/);
  });

  it('NATS: --nats, else $NATS_URL, else the stack.json of the home (--home, else $ESP_HOME); no stack: no server', () => {
    const home = mkdtempSync(join(tmpdir(), 'esp-crawl-cli-'));
    try {
      const nats = (argv: string[], e: NodeJS.ProcessEnv) => {
        const where = cliStack(argv, e, 'admin');
        return where.kind === 'stack' ? plan(argv, where.env).nats : where.kind;
      };
      expect(nats(['status', '--home', home], {})).toBe('no-stack');
      writeFileSync(join(home, 'stack.json'), JSON.stringify({ nats: 'nats://127.0.0.1:5222' }));
      expect(nats(['status', '--home', home], {})).toEqual(['nats://127.0.0.1:5222']);
      expect(nats(['status'], { ESP_HOME: home })).toEqual(['nats://127.0.0.1:5222']);
      expect(nats(['status', '--home', home], { NATS_URL: 'nats://e:1' })).toEqual(['nats://e:1']);
      expect(nats(['status', '--home', home, '--nats', 'nats://f:1,nats://g:1'], { NATS_URL: 'nats://e:1' })).toEqual(['nats://f:1', 'nats://g:1']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('--give-up-after: the documented default, 0 for never; --wait-for-nats likewise', () => {
    expect(plan(['-c', 'web', 'http://a.example/'])).toMatchObject({ giveUpAfterMs: DEFAULT_GIVE_UP_S * 1000, waitForNatsMs: 30_000 });
    expect(plan(['-c', 'web', '--give-up-after', '0', '--wait-for-nats', '0', 'http://a.example/'])).toMatchObject({ giveUpAfterMs: undefined, waitForNatsMs: 0 });
    expect(HELP).toContain(`(default: ${DEFAULT_GIVE_UP_S}; 0: never)`);
    expect(HELP).toContain('--wait-for-nats');
    expect(HELP).toContain('$ESP_HOME');
    expect(HELP).toContain('$INIT_CWD');
    expect(error(['-c', 'web', '--give-up-after', 'x', 'http://a.example/'])).toMatch(/--give-up-after must be a number/);
    expect((plan(['delete', '-c', 'web']) as Extract<Plan, { action: 'command' }>).command).toEqual({ kind: 'delete' });
  });
});

describe('crawl reports', () => {
  const st = {
    collection: 'web',
    state: 'active',
    epoch: 1,
    queued: 2,
    nodes: [{ node: 'node1', idle: false, queued: 3, in_flight: 1, reported_ms_ago: 10 }],
    stats: { fetched: 10, fed: 8, duplicates: 1, errors: 1, feed_failed: 1, excluded: 2, noindex: 1 },
    sites: [{ site: 'a.example', node: 'node1', fetched: 10, queued: 3 }],
    done: false,
  };
  it('progress line and summaries name fetched, queued, failed, duplicates, per site', () => {
    expect(progressLine(st)).toBe('crawl web: fetched 10, fed 8, duplicates 1, failed 2, excluded 3 | queued 5, in flight 1 | 1 node | a.example 10/3');
    expect(summaryText({ ...st, done: true }, 1500)).toContain('crawl of web done in 1.5 s\n  fetched 10  fed 8  duplicates 1  failed 2  excluded 3');
    expect(summaryText(st, undefined)).toContain('a.example  fetched 10  queued 3  (node1)');
    expect(summaryJson(st, 100)).toMatchObject({ collection: 'web', done: false, elapsed_ms: 100, fetched: 10, fed: 8, duplicates: 1, failed: 2, queued: 5, inFlight: 1 });
  });
});
