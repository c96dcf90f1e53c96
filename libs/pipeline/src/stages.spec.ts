import {
  Action,
  BytearrayAttribute,
  FormatError,
  IntegerAttribute,
  OperationDropped,
  ProcessingError,
  ServerUnavailable,
  StringAttribute,
  StringCollection,
  Utf8Error,
  Warning,
  XmlError,
  decodeCheetah,
  encodeCheetah,
} from '@esp/codecs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPipelines } from './config';
import { PROCESSING_ERROR_CODES } from './stage';
import { extractHtml, firstInvalidUtf8, firstLoneSurrogate, normalizeText, xmlWellFormednessError } from './stages';
import type { NormalizeOptions } from './stages/normalize';
import { attrsOf, itemOf } from './test-helpers';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** A one-collection pipeline from a list of stage specs. */
function pipeline(...stages: Record<string, unknown>[]) {
  return buildPipelines({ pipelines: { p: stages }, default_pipeline: 'p' }).forCollection('any');
}

describe('utf8 stage', () => {
  it('firstInvalidUtf8 - finds the first bad byte: stray continuation, overlong, surrogate, above U+10FFFF, truncated', () => {
    expect(firstInvalidUtf8(utf8('plain ✓ 日本 😀'))).toBe(-1);
    expect(firstInvalidUtf8(Uint8Array.of(0x61, 0x80))).toBe(1);
    expect(firstInvalidUtf8(Uint8Array.of(0xc0, 0xaf))).toBe(0); // overlong "/"
    expect(firstInvalidUtf8(Uint8Array.of(0x61, 0xe0, 0x80, 0x80))).toBe(1); // overlong 3-byte
    expect(firstInvalidUtf8(Uint8Array.of(0xed, 0xa0, 0x80))).toBe(0); // U+D800
    expect(firstInvalidUtf8(Uint8Array.of(0xf4, 0x90, 0x80, 0x80))).toBe(0); // U+110000
    expect(firstInvalidUtf8(Uint8Array.of(0x61, 0x62, 0xe2, 0x9c))).toBe(2); // truncated
    expect(firstInvalidUtf8(Uint8Array.of(0xff))).toBe(0);
    expect(firstLoneSurrogate('ok 😀')).toBe(-1);
    expect(firstLoneSurrogate('a\uD800b')).toBe(1);
    expect(firstLoneSurrogate('ab\uDC00')).toBe(2);
  });

  it('invalid bytes in a bytearray attribute fail the item with utf8_error: processor, code, action, offset', async () => {
    const out = await pipeline({ type: 'utf8' }).run(itemOf('d1', { body: Uint8Array.of(0x68, 0x69, 0xff, 0x21) }, 42));
    expect(out.doc).toBeUndefined();
    expect(out.error).toBeInstanceOf(Utf8Error);
    expect(out.error).toBeInstanceOf(FormatError);
    expect(out.error).toMatchObject({
      processor: 'utf8',
      subsystem: 'processing',
      session_id: 7,
      operation_id: 42,
      error_code: PROCESSING_ERROR_CODES.utf8_error,
      suggested_action: Action.drop,
      arguments: [],
      description: 'attribute "body": invalid UTF-8 at byte 2 (0xff)',
    });
  });

  it('valid bytearray attributes become strings; listed attributes only when configured', async () => {
    const out = await pipeline({ type: 'utf8' }).run(itemOf('d1', { body: utf8('héllo ✓'), title: 'T' }));
    expect(out.error).toBeUndefined();
    expect(attrsOf(out.doc)).toEqual({ body: 'héllo ✓', title: 'T' });
    const only = await pipeline({ type: 'utf8', attributes: ['body'] }).run(itemOf('d1', { body: utf8('ok'), raw: Uint8Array.of(0xff) }));
    expect(only.error).toBeUndefined();
    expect(only.doc?.document_attributes[1]).toBeInstanceOf(BytearrayAttribute);
  });

  it('a string with an unpaired surrogate has no UTF-8 form: utf8_error', async () => {
    const out = await pipeline({ type: 'utf8' }).run(itemOf('d1', { title: 'bad \uD800 title' }));
    expect(out.error).toBeInstanceOf(Utf8Error);
    expect(out.error?.description).toMatch(/"title": unpaired surrogate at character 4/);
  });
});

describe('xml stage', () => {
  it('xmlWellFormednessError - says where and what', () => {
    expect(xmlWellFormednessError('<a><b>x</b></a>')).toBeUndefined();
    expect(xmlWellFormednessError('<a><b>x</a>')).toBe('1:11: unexpected close tag.');
    expect(xmlWellFormednessError('<a>&nope;</a>')).toBe('1:9: undefined entity.');
    expect(xmlWellFormednessError('')).toMatch(/root/);
  });

  it('malformed XML content fails with xml_error (processor = stage name); well-formed passes', async () => {
    const p = pipeline({ type: 'xml', name: 'xml-check' });
    const bad = await p.run(itemOf('x1', { body: '<doc><p>unclosed</doc>', content_type: 'application/xml' }, 3));
    expect(bad.error).toBeInstanceOf(XmlError);
    expect(bad.error).toMatchObject({ processor: 'xml-check', operation_id: 3, error_code: PROCESSING_ERROR_CODES.xml_error, suggested_action: Action.drop });
    expect(bad.error?.description).toMatch(/attribute "body" is not well-formed XML: \d+:\d+: /);
    const good = await p.run(itemOf('x2', { body: '<?xml version="1.0"?><doc><p>fine</p></doc>' }));
    expect(good.error).toBeUndefined();
  });

  it('only XML content is checked: declared type, or detected XML declaration', async () => {
    const p = pipeline({ type: 'xml' });
    expect((await p.run(itemOf('h', { body: '<p>html <br> is not xml', content_type: 'text/html' }))).error).toBeUndefined();
    expect((await p.run(itemOf('t', { body: 'a < b' }))).error).toBeUndefined();
    expect((await p.run(itemOf('d', { body: '<?xml version="1.0"?><a>' }))).error).toBeInstanceOf(XmlError);
    expect((await p.run(itemOf('atom', { body: '<feed>', content_type: 'application/atom+xml; charset=utf-8' }))).error).toBeInstanceOf(XmlError);
  });
});

describe('html stage', () => {
  const page = `<!DOCTYPE html><html><head><title> Hello &amp; welcome </title><base href="https://example.org/docs/">
    <style>body { color: red }</style><script>var x = "<b>not text</b>";</script></head>
    <body><h1>Heading</h1><p>First&nbsp;paragraph with <a href="page2.html#top">a link</a>.</p>
    <ul><li><a href="https://other.example/x">x</a></li><li><a href="javascript:void(0)">js</a></li><li><a href="#frag">f</a></li></ul>
    <p>caf\u00e9 <img src="i.png" alt="picture"></p><a href="page2.html">again</a></body></html>`;

  it('extractHtml - title, text without script/style, links resolved against <base>, deduplicated', () => {
    const r = extractHtml(page);
    expect(r.title).toBe('Hello & welcome');
    expect(r.text).toBe('Heading\nFirst paragraph with a link.\nx\njs\nf\ncafé picture\nagain');
    expect(r.links).toEqual(['https://example.org/docs/page2.html', 'https://other.example/x']);
    expect(r.text).not.toMatch(/color|not text/);
  });

  it('HTML documents get text, title and links attributes; relative links resolve against the url attribute', async () => {
    const out = await pipeline({ type: 'html' }).run(
      itemOf('h1', { url: 'https://site.example/a/index.html', body: '<html><title>T</title><body><p>Hi <a href="../b.html">b</a></p></body></html>' }),
    );
    expect(out.error).toBeUndefined();
    expect(attrsOf(out.doc)).toEqual({ url: 'https://site.example/a/index.html', body: 'Hi b', title: 'T', links: ['https://site.example/b.html'] });
    expect(out.doc?.document_attributes.find((a) => a.key === 'links')).toBeInstanceOf(StringCollection);
  });

  it('keeps an existing title unless told to overwrite; can keep the HTML; leaves non-HTML alone', async () => {
    const html = '<html><head><title>From page</title></head><body>x</body></html>';
    const kept = await pipeline({ type: 'html', keep_html_attribute: 'html', text_attribute: 'text' }).run(itemOf('a', { title: 'Given', body: html }));
    expect(attrsOf(kept.doc)).toMatchObject({ title: 'Given', body: html, html, text: 'x' });
    const over = await pipeline({ type: 'html', overwrite_title: true }).run(itemOf('a', { title: 'Given', body: html }));
    expect(attrsOf(over.doc)['title']).toBe('From page');
    const plain = await pipeline({ type: 'html' }).run(itemOf('p', { body: 'just <text>', content_type: 'text/plain' }));
    expect(attrsOf(plain.doc)).toEqual({ body: 'just <text>', content_type: 'text/plain' });
  });
});

describe('normalize stage', () => {
  it('NFC: a decomposed é becomes the composed one; whitespace collapsed; control characters removed', async () => {
    const decomposed = 'Cafe\u0301  au\tlait\u0007\n';
    const out = await pipeline({ type: 'normalize' }).run(itemOf('n', { title: decomposed, tags: new StringCollection({ key: 'tags', values: ['A\u030a', ' x '] }) }));
    expect(attrsOf(out.doc)).toEqual({ title: 'Caf\u00e9 au lait', tags: ['\u00c5', 'x'] });
  });

  it('the printable-ASCII shortcut gives what the general path (NFC/NFKC, \\s+, trim) gives', () => {
    const reference = (s: string, o: NormalizeOptions) => {
      let out = s.normalize(o.form);
      if (o.collapse_whitespace) out = out.replace(/\s+/g, ' ');
      return o.trim ? out.trim() : out;
    };
    const text = fc.string({ unit: fc.constantFrom(' ', ' ', 'a', 'B', '.', '~', '0') });
    fc.assert(
      fc.property(text, fc.boolean(), fc.boolean(), fc.constantFrom('NFC' as const, 'NFKC' as const), (s, collapse, trim, form) => {
        const o: NormalizeOptions = { form, collapse_whitespace: collapse, keep_newlines: false, trim, strip_control: true };
        expect(normalizeText(s, o)).toBe(reference(s, o));
      }),
    );
  });

  it('NFKC and keep_newlines on request', () => {
    const o = { form: 'NFKC', collapse_whitespace: true, keep_newlines: true, trim: true, strip_control: true } as const;
    expect(normalizeText('\uFB01ne  one\n\n\n  two ', o)).toBe('fine one\ntwo');
  });
});

describe('map stage', () => {
  it('copies, renames (keeping the attribute type), removes and sets', async () => {
    const out = await pipeline({
      type: 'map',
      copy: { title: 'headline' },
      rename: { size: 'bytes', missing: 'nothing' },
      remove: ['secret'],
      set: { source: 'feed', rank: 3, big: 2 ** 40, score: 0.5, fresh: true },
      warn_missing: true,
    }).run(itemOf('m', { title: 'T', size: new IntegerAttribute({ key: 'size', value: 12 }), secret: 's' }));
    expect(attrsOf(out.doc)).toEqual({ title: 'T', headline: 'T', bytes: 12, source: 'feed', rank: 3, big: 2 ** 40, score: 0.5, fresh: true });
    expect(out.doc?.document_attributes.find((a) => a.key === 'bytes')).toBeInstanceOf(IntegerAttribute);
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toBeInstanceOf(Warning);
    expect(out.warnings[0]).toMatchObject({ description: 'map: rename: no attribute "missing"', subsystem: 'processing', session_id: 7, operation_id: 1 });
  });
});

describe('drop stage', () => {
  it('an attribute matching a rule gives operation_dropped (suggested action drop); others pass', async () => {
    const p = pipeline({ type: 'drop', name: 'no-spam', rules: [{ attribute: 'url', pattern: 'spam\\.', flags: 'i' }, { attribute: 'tags', pattern: '^nsfw$' }] });
    const dropped = await p.run(itemOf('s', { url: 'http://SPAM.example/' }, 9));
    expect(dropped.error).toBeInstanceOf(OperationDropped);
    expect(dropped.error).toBeInstanceOf(ProcessingError);
    expect(dropped.error).toMatchObject({ processor: 'no-spam', operation_id: 9, suggested_action: Action.drop, error_code: PROCESSING_ERROR_CODES.operation_dropped });
    expect(dropped.error?.description).toBe('dropped: attribute "url" matches /spam\\./i');
    const byCollection = await p.run(itemOf('t', { tags: new StringCollection({ key: 'tags', values: ['ok', 'nsfw'] }) }));
    expect(byCollection.error).toBeInstanceOf(OperationDropped);
    expect((await p.run(itemOf('ok', { url: 'http://fine.example/' }))).error).toBeUndefined();
  });
});

describe('fail stage', () => {
  it('fails documents whose id matches, with the configured error entity and action', async () => {
    const p = pipeline({ type: 'fail', id_pattern: '^bad-', error: 'server_unavailable', suggested_action: 'resubmit', description: 'backend down' });
    const out = await p.run(itemOf('bad-1', { title: 'x' }, 5));
    expect(out.error).toBeInstanceOf(ServerUnavailable);
    expect(out.error).toMatchObject({ processor: 'fail', description: 'backend down', suggested_action: Action.resubmit, error_code: PROCESSING_ERROR_CODES.server_unavailable });
    expect((await p.run(itemOf('good-1', {}))).error).toBeUndefined();
  });

  it('a stage that throws fails the item with a processing_error saying it crashed', async () => {
    const out = await pipeline({ type: 'utf8' }, { type: 'fail', name: 'crashy', id_pattern: '.', error: 'throw', description: 'kaboom' }).run(itemOf('c', {}));
    expect(out.error?.constructor).toBe(ProcessingError);
    expect(out.error).toMatchObject({ processor: 'crashy', description: 'stage crashed: kaboom', suggested_action: Action.limited_resubmit });
    expect(out.stages.map((s) => [s.stage, s.ok])).toEqual([['utf8', true], ['crashy', false]]);
  });

  it('probability: a seeded share of items fails, the same ones every run', async () => {
    const run = async () => {
      const p = pipeline({ type: 'fail', probability: 0.3, seed: 42 });
      const failed: number[] = [];
      for (let i = 0; i < 200; i++) if ((await p.run(itemOf(`d${i}`, {}))).error) failed.push(i);
      return failed;
    };
    const a = await run();
    expect(a.length).toBeGreaterThan(35);
    expect(a.length).toBeLessThan(85);
    expect(await run()).toEqual(a);
  });

  it('warn_id_pattern adds a warning naming the stage; the item still passes', async () => {
    const out = await pipeline({ type: 'fail', name: 'warner', warn_id_pattern: 'w' }).run(itemOf('w1', {}));
    expect(out.error).toBeUndefined();
    expect(out.warnings.map((w) => w.description)).toEqual(['warner: warning on purpose for "w1"']);
  });
});

describe('pipeline', () => {
  it('runs stages in order, stops at the first failure, times each stage, records attribute changes', async () => {
    const p = pipeline({ type: 'utf8' }, { type: 'html' }, { type: 'drop', rules: [{ attribute: 'title', pattern: 'Spam' }] }, { type: 'normalize' });
    const ok = await p.run(itemOf('a', { body: utf8('<html><title>Ham</title><body>x</body></html>') }));
    expect(ok.stages.map((s) => s.stage)).toEqual(['utf8', 'html', 'drop', 'normalize']);
    expect(ok.stages.every((s) => s.ok && s.work >= 0 && s.user >= 0 && s.system >= 0)).toBe(true);
    expect(ok.changes.map((c) => `${c.stage}:${c.key}:${c.change}`)).toEqual(['utf8:body:changed', 'html:body:changed', 'html:title:added']);
    const bad = await p.run(itemOf('b', { body: utf8('<html><title>Spam</title></html>') }));
    expect(bad.stages.map((s) => s.stage)).toEqual(['utf8', 'html', 'drop']);
    expect(bad.total.ok).toBe(false);
  });

  it('errors and warnings survive a Cheetah round trip with their class and processor', async () => {
    const out = await pipeline({ type: 'fail', id_pattern: '.', error: 'format_error', warn_id_pattern: '.' }).run(itemOf('r', {}));
    const back = decodeCheetah(encodeCheetah({ e: out.error, w: out.warnings })) as { e: FormatError; w: Warning[] };
    expect(back.e).toBeInstanceOf(FormatError);
    expect(back.e.processor).toBe('fail');
    expect(back.w[0]).toBeInstanceOf(Warning);
  });

  it('debug messages (the stages\' own and their timings) are kept only when asked; the outcome is the same otherwise', async () => {
    const p = pipeline({ type: 'xml' }, { type: 'normalize' });
    const item = () => itemOf('d', { body: '<a> x </a>', content_type: 'text/xml' });
    const kept = await p.run(item());
    expect(kept.debug).toEqual([expect.stringMatching(/^xml: well-formed XML$/), expect.stringMatching(/^xml: ok in /), expect.stringMatching(/^normalize: .*normalized/), expect.stringMatching(/^normalize: ok in /)]);
    const quiet = await p.run(item(), { debug: false, cpu: false });
    expect(quiet.debug).toEqual([]);
    expect(attrsOf(quiet.doc)).toEqual(attrsOf(kept.doc));
    expect(quiet.stages.map((s) => [s.stage, s.ok, s.user, s.system])).toEqual([
      ['xml', true, 0, 0],
      ['normalize', true, 0, 0],
    ]);
  });

  it('string attributes stay StringAttribute entities', async () => {
    const out = await pipeline({ type: 'normalize' }).run(itemOf('s', { t: ' x ' }));
    expect(out.doc?.document_attributes[0]).toBeInstanceOf(StringAttribute);
  });
});

describe('fail stage: delay', () => {
  it('holds up the items it is told to, and only those', async () => {
    const { createFailStage, failOptions } = await import('./stages/fail');
    const stage = createFailStage('slow', failOptions.parse({ delay_ms: 120, delay_id_pattern: '^slow' }));
    const ctx = (id: string) => ({ doc: { id }, warn: () => undefined, debug: () => undefined, debugging: false }) as unknown as Parameters<typeof stage.process>[0];
    let t0 = performance.now();
    await stage.process(ctx('slow-1'));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(100);
    t0 = performance.now();
    await stage.process(ctx('fast-1'));
    expect(performance.now() - t0).toBeLessThan(50);
  });
});
