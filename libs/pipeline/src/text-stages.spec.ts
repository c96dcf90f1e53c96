import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPipelines, DEFAULT_PIPELINE_CONFIG } from './config';
import { collapseLines, extractHtml, extractHtmlCooperatively, normalizeText, normalizeTextCooperatively } from './stages';
import { attrsOf, itemOf } from './test-helpers';

const opts = { form: 'NFC' as const, collapse_whitespace: true, keep_newlines: false, trim: true, strip_control: true };
/** The definition: every run of whitespace becomes one space. */
// eslint-disable-next-line no-control-regex -- the definition's control characters, as the stage has them
const reference = (s: string) => s.normalize('NFC').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g, '').replace(/\s+/g, ' ').trim();

describe('normalizeText', () => {
  it('collapses whitespace exactly as "every run becomes one space" does, for any text', () => {
    const ws = fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', ' \t ', '\n\n', 'é', 'x');
    fc.assert(fc.property(fc.array(fc.oneof(fc.string(), ws)), (parts) => {
        expect(normalizeText(parts.join(''), opts)).toBe(reference(parts.join('')));
      }), { numRuns: 500 });
  });

  it('normalizes 12 MB of text in well under the time of a per-space replacement', () => {
    const words = 'lorem ipsum dolor sit amet\n consectetur café ';
    const text = words.repeat(Math.ceil(12e6 / words.length));
    const t0 = performance.now();
    const out = normalizeText(text, opts);
    const ms = performance.now() - t0;
    expect(out.startsWith('lorem ipsum dolor sit amet consectetur café lorem')).toBe(true);
    // about 0.6 s here against 3.4 s with a replacement per space; generous for a loaded machine
    expect(ms).toBeLessThan(2500);
  });
});

describe('large documents a slice at a time', () => {
  // random text without '<': the tags are whole ones from the list (htmlparser2 ends a document cut inside a tag,
  // "<A/", differently when it came in pieces; a page's last slice ends where the page ends)
  const text = fc.array(fc.oneof(fc.string({ maxLength: 12 }).map((x) => x.replace(/</g, '')), fc.constantFrom(' ', '  ', '\n', '\r\n', '\t', '\n\n', 'e\u0301', '<p>', '</p>', '<br>', '&amp;', '<script>x</script>', '<title>T</title>')), { maxLength: 60 }).map((p) => p.join(''));

  it('normalizeTextCooperatively gives what normalizeText gives, whatever the slice size, with and without lines kept', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 20 }), fc.boolean(), async (s, slice, keep) => {
        const o = { ...opts, keep_newlines: keep };
        expect(await normalizeTextCooperatively(s, o, slice)).toBe(normalizeText(s, o));
      }),
      { numRuns: 400 },
    );
  });

  it('extractHtmlCooperatively gives what extractHtml gives, whatever the chunk boundaries', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 20 }), async (s, chunk) => {
        expect(await extractHtmlCooperatively(s, {}, chunk)).toEqual(extractHtml(s, {}));
      }),
      { numRuns: 400 },
    );
  });

  it('the default pipeline on a 20 MB HTML page never holds the event loop for a second (heartbeats go on)', async () => {
    const para = '<p>lorem ipsum dolor <b>sit</b> amet, consectetur adipiscing elit &amp; caf\u00e9</p>\n';
    const html = `<html><head><title>Big</title></head><body>${para.repeat(Math.ceil(20e6 / para.length))}<p>lastwordhere</p></body></html>`;
    const pipeline = buildPipelines(DEFAULT_PIPELINE_CONFIG).forCollection('x');
    let last = performance.now();
    let worst = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 10);
    try {
      const out = await pipeline.run(itemOf('big', { body: new TextEncoder().encode(html), content_type: 'text/html' }));
      expect(out.error).toBeUndefined();
      expect(String(attrsOf(out.doc)['body']).endsWith('lastwordhere')).toBe(true);
      // the stretch since the last tick counts too: a loop held to the end never ticks at all
      worst = Math.max(worst, performance.now() - last);
    } finally {
      clearInterval(timer);
    }
    // whole: several seconds with the loop held; in slices, a slice's worth at most (generous on a loaded machine)
    console.log(`worst event loop gap: ${worst.toFixed(0)} ms`);
    expect(worst).toBeLessThan(1500);
  }, 120_000);
});

describe('collapseLines', () => {
  it('is the line-by-line definition: whitespace runs to one space, lines trimmed, empty lines dropped', () => {
    const definition = (t: string) =>
      t
        .split('\n')
        .map((line) => line.replace(/[^\S\n]+/g, ' ').trim())
        .filter((line) => line !== '')
        .join('\n');
    const piece = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(' ', '  ', '\n', '\r\n', '\t', ' \n ', '\n\n', '\u00a0', '\u2028', 'x'));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        expect(collapseLines(parts.join(''))).toBe(definition(parts.join('')));
      }),
      { numRuns: 1000 },
    );
  });
});
