import { BytearrayAttribute, FormatError, Utf8Error } from '@esp/codecs';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import iconv from 'iconv-lite';
import PDFDocument from 'pdfkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PIPELINE_CONFIG, buildPipelines } from './config';
import { PROCESSING_ERROR_CODES } from './stage';
import { decideCharset, detectType, docxTitle } from './stages';
import { attrsOf, itemOf } from './test-helpers';

const utf8 = (s: string) => new TextEncoder().encode(s);
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

function pipeline(...stages: Record<string, unknown>[]) {
  return buildPipelines({ pipelines: { p: stages }, default_pipeline: 'p' }).forCollection('any');
}
const defaults = () => buildPipelines(DEFAULT_PIPELINE_CONFIG).forCollection('any');

/** A two-page PDF with a title in its document information, made with pdfkit. */
function makePdf(title: string | undefined, pages: string[]): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument(title ? { info: { Title: title } } : {});
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on('error', reject);
    pages.forEach((text, i) => {
      if (i > 0) doc.addPage();
      doc.text(text);
    });
    doc.end();
  });
}

async function makeDocx(title: string | undefined, paragraphs: string[]): Promise<Uint8Array> {
  const doc = new Document({ ...(title ? { title } : {}), sections: [{ children: paragraphs.map((p) => new Paragraph({ children: [new TextRun(p)] })) }] });
  return new Uint8Array(await Packer.toBuffer(doc));
}

/** A 1×1 PNG (signature, IHDR, IDAT, IEND). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let pdf: Uint8Array;
let docx: Uint8Array;
beforeAll(async () => {
  pdf = await makePdf('Annual report: naïve café', ['The quick brown fox jumps over the lazy dog.', 'Second page: zebras and quokkas.']);
  docx = await makeDocx('Minutes of the meeting', ['Hello naïve café world.', 'Second paragraph about quokkas.']);
});

describe('detect stage', () => {
  it('detectType - magic numbers win over the declared type; text keeps its declared type or is sniffed', async () => {
    expect(await detectType(pdf, 'application/octet-stream')).toBe('application/pdf');
    expect(await detectType(pdf, 'text/html')).toBe('application/pdf');
    expect(await detectType(docx, undefined)).toBe(DOCX);
    expect(await detectType(PNG, 'text/html')).toBe('image/png');
    expect(await detectType(utf8('<!DOCTYPE html><p>x'), undefined)).toBe('text/html');
    expect(await detectType(utf8('  <html lang="en"><p>x'), 'application/octet-stream')).toBe('text/html');
    expect(await detectType(utf8('<?xml version="1.0"?><a/>'), undefined)).toBe('application/xml');
    expect(await detectType(utf8('<?xml version="1.0"?><rss/>'), 'application/rss+xml')).toBe('application/rss+xml');
    // UTF-16 with its byte order mark is text (FF FE is also how an MPEG audio frame opens), sniffed as decoded text
    const utf16le = (t: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]);
    const utf16be = (t: string) => Buffer.from(utf16le(t).map((_, i, b) => b[i ^ 1] as number));
    expect(await detectType(utf16le('<!DOCTYPE html><p>grüße'), undefined)).toBe('text/html');
    expect(await detectType(utf16be('<!DOCTYPE html><p>grüße'), undefined)).toBe('text/html');
    expect(await detectType(utf16le('plain words'), 'application/octet-stream')).toBe('text/plain');
    expect(await detectType(utf16le('<?xml version="1.0"?><a/>'), undefined)).toBe('application/xml');
    expect(await detectType(utf8('<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><p>x</p></html>'), undefined)).toBe('application/xhtml+xml');
    expect(await detectType(utf8('just words'), undefined)).toBe('text/plain');
    expect(await detectType(utf8('<p>a fragment</p>'), 'text/html')).toBe('text/html');
    expect(await detectType(Uint8Array.of(1, 0, 2, 0, 3), undefined)).toBe('application/octet-stream');
    // formats whose magic numbers are printable text are still looked for in text without control characters
    expect(await detectType(utf8('%PDF-1.4\n1 0 obj << >> endobj\n'), 'text/plain')).toBe('application/pdf');
    expect(await detectType(utf8('{\\rtf1\\ansi Hello}'), 'text/plain')).toBe('application/rtf');
    expect(await detectType(utf8('GIF89a\x01\x00\x01\x00'), 'text/plain')).toBe('image/gif');
  });

  it('sets content_type, size and format from the bytes: a PDF declared octet-stream', async () => {
    const out = await pipeline({ type: 'detect' }).run(itemOf('d1', { url: 'file:///a/r.bin', body: pdf, content_type: 'application/octet-stream' }));
    expect(out.error).toBeUndefined();
    expect(attrsOf(out.doc)).toMatchObject({ content_type: 'application/pdf', size: pdf.length, format: 'pdf' });
    expect(out.doc?.document_attributes.find((a) => a.key === 'body')).toBeInstanceOf(BytearrayAttribute);
  });

  it('a declared type the bytes agree with keeps its parameters (the charset of the HTTP header)', async () => {
    const out = await pipeline({ type: 'detect' }).run(itemOf('d1', { body: utf8('<html><p>x'), content_type: 'text/html; charset=windows-1252' }));
    expect(attrsOf(out.doc)).toMatchObject({ content_type: 'text/html; charset=windows-1252', format: 'html', size: 10 });
  });

  it('binary content (a PNG called .html) is indexed by its metadata: no body, the file name as title', async () => {
    const out = await pipeline({ type: 'detect' }).run(itemOf('d1', { url: 'http://x.org/img/My%20logo.html?v=2', body: PNG, content_type: 'text/html' }));
    expect(out.error).toBeUndefined();
    expect(attrsOf(out.doc)).toEqual({ url: 'http://x.org/img/My%20logo.html?v=2', content_type: 'image/png', size: PNG.length, format: 'image', title: 'My logo.html' });
  });

  it('binary content with binary: fail is unsupported_format, naming the detected type', async () => {
    const out = await pipeline({ type: 'detect', binary: 'fail' }).run(itemOf('d1', { url: 'file:///logo.png', body: PNG, content_type: 'image/png' }));
    expect(out.error).toBeInstanceOf(FormatError);
    expect(out.error).toMatchObject({ processor: 'detect', error_code: PROCESSING_ERROR_CODES.unsupported_format });
    expect(PROCESSING_ERROR_CODES.unsupported_format).toBe(107);
    expect(out.error?.description).toMatch(/image\/png content \(image\) cannot be indexed/);
  });

  it('leaves documents without a body alone; a string body gets its size and format', async () => {
    const none = await pipeline({ type: 'detect' }).run(itemOf('d1', { title: 'T', url: 'file:///x.png' }));
    expect(attrsOf(none.doc)).toEqual({ title: 'T', url: 'file:///x.png' });
    const text = await pipeline({ type: 'detect' }).run(itemOf('d1', { body: 'café', content_type: 'text/plain' }));
    expect(attrsOf(text.doc)).toEqual({ body: 'café', content_type: 'text/plain', size: 5, format: 'text' });
  });
});

const LATIN1_FR = 'Le café est très naïve, à la française.';
const JA = '日本語のテキストです。東京は日本の首都であり、多くの人々が住んでいます。桜の季節はとても美しいです。';
const html = (head: string, body: string) => `<!DOCTYPE html><html><head>${head}<title>Titre</title></head><body><p>${body}</p></body></html>`;

describe('charset stage', () => {
  const run = (body: Uint8Array, content_type?: string) =>
    pipeline({ type: 'charset' }).run(itemOf('d1', content_type === undefined ? { body } : { body, content_type }));

  it('Latin-1 HTML with <meta charset> is decoded (as windows-1252, HTML 5)', async () => {
    const out = await run(iconv.encode(html('<meta charset="ISO-8859-1">', LATIN1_FR), 'latin1'), 'text/html');
    expect(out.error).toBeUndefined();
    const a = attrsOf(out.doc);
    expect(a['body']).toContain('café est très naïve');
    expect(a['charset']).toBe('windows-1252');
  });

  it('Windows-1252 “smart quotes” and € from the http-equiv meta and from the content type', async () => {
    const text = '“Quoted” text costs 5 € – naïve';
    const meta = await run(iconv.encode(html('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">', text), 'win1252'), 'text/html');
    expect(attrsOf(meta.doc)['body']).toContain(text);
    const header = await run(iconv.encode(`<p>${text}</p>`, 'win1252'), 'text/html; charset=Windows-1252');
    expect(attrsOf(header.doc)).toMatchObject({ body: `<p>${text}</p>`, charset: 'windows-1252' });
    // a declared Latin-1 page with 0x80-0x9f bytes is windows-1252: € and quotes, not C1 controls
    const latin1Label = await run(iconv.encode(text, 'win1252'), 'text/plain; charset=iso-8859-1');
    expect(attrsOf(latin1Label.doc)['body']).toBe(text);
  });

  it('Shift_JIS Japanese: with a meta charset, with a charset in the content type, and detected without either', async () => {
    const sjis = (s: string) => iconv.encode(s, 'shift_jis');
    const meta = await run(sjis(html('<meta charset="Shift_JIS">', JA)), 'text/html');
    expect(attrsOf(meta.doc)).toMatchObject({ charset: 'shift_jis' });
    expect(attrsOf(meta.doc)['body']).toContain('東京は日本の首都');
    const header = await run(sjis(JA), 'text/plain; charset=shift_jis');
    expect(attrsOf(header.doc)['body']).toBe(JA);
    const detected = await run(sjis(html('', JA)), 'text/html');
    expect(detected.error).toBeUndefined();
    expect(attrsOf(detected.doc)['body']).toContain('桜の季節はとても美しいです');
    expect(String(attrsOf(detected.doc)['charset'])).toMatch(/shift_jis|cp932|windows-31j/i);
  });

  it('GB18030 and EUC-JP from the content type; an XML declaration encoding', async () => {
    const gb = await run(iconv.encode('中文文本，简体字。', 'gb18030'), 'text/plain; charset=GB18030');
    expect(attrsOf(gb.doc)['body']).toBe('中文文本，简体字。');
    const euc = await run(iconv.encode(JA, 'euc-jp'), 'text/plain; charset=EUC-JP');
    expect(attrsOf(euc.doc)['body']).toBe(JA);
    const xml = await run(iconv.encode(`<?xml version="1.0" encoding="ISO-8859-1"?><doc>${LATIN1_FR}</doc>`, 'latin1'), 'application/xml');
    expect(attrsOf(xml.doc)).toMatchObject({ body: `<?xml version="1.0" encoding="ISO-8859-1"?><doc>${LATIN1_FR}</doc>`, charset: 'windows-1252' });
  });

  it('undeclared Latin-1 text is detected; valid UTF-8 is UTF-8 without the detector', async () => {
    const latin = await run(iconv.encode(`${LATIN1_FR} ${LATIN1_FR} Déjà vu, crème brûlée.`, 'latin1'), 'text/plain');
    expect(attrsOf(latin.doc)).toMatchObject({ charset: 'windows-1252' });
    expect(attrsOf(latin.doc)['body']).toContain('naïve, à la française');
    const russian = 'Привет, как дела? Это русский текст в кодировке Windows-1251, и его надо прочитать.';
    const cyrillic = await run(iconv.encode(russian, 'win1251'), 'text/plain');
    expect(attrsOf(cyrillic.doc)).toMatchObject({ body: russian, charset: 'windows-1251' });
    expect(decideCharset(utf8('naïve café'), 'text/plain', { meta_bytes: 4096, detect_bytes: 65536, min_confidence: 0.2, fallback: 'windows-1252' })).toEqual({
      label: 'utf-8',
      source: 'utf-8 bytes',
      bom: 0,
    });
  });

  it('the order: BOM, then the content type, then <meta>', () => {
    const o = { meta_bytes: 4096, detect_bytes: 65536, min_confidence: 0.2, fallback: 'windows-1252' };
    const page = utf8(html('<meta charset="shift_jis">', 'x'));
    expect(decideCharset(page, 'text/html; charset=euc-jp', o).source).toBe('content type');
    expect(decideCharset(page, 'text/html', o)).toMatchObject({ label: 'shift_jis', source: 'meta' });
    expect(decideCharset(Uint8Array.of(0xef, 0xbb, 0xbf, ...page), 'text/html; charset=euc-jp', o)).toMatchObject({ label: 'utf-8', source: 'bom', bom: 3 });
  });

  it('a UTF-8 byte order mark is taken and dropped; UTF-16 by its BOM', async () => {
    const out = await run(Uint8Array.of(0xef, 0xbb, 0xbf, ...utf8('café naïve')), 'text/plain; charset=iso-8859-1');
    expect(attrsOf(out.doc)).toMatchObject({ body: 'café naïve', charset: 'utf-8' });
    const le = await run(Uint8Array.of(0xff, 0xfe, ...iconv.encode('naïve 日本', 'utf-16le')), 'text/plain');
    expect(attrsOf(le.doc)).toMatchObject({ body: 'naïve 日本', charset: 'utf-16le' });
  });

  it('declared UTF-8 (BOM, header, meta) whose bytes are not UTF-8 fails with utf8_error and the offset', async () => {
    const bom = await run(Uint8Array.of(0xef, 0xbb, 0xbf, 0x61, 0xe9, 0x62), 'text/plain');
    expect(bom.error).toBeInstanceOf(Utf8Error);
    expect(bom.error).toMatchObject({ processor: 'charset', error_code: PROCESSING_ERROR_CODES.utf8_error });
    expect(bom.error?.description).toBe('attribute "body": declared UTF-8 (bom) but invalid UTF-8 at byte 4 (0xe9)');
    const meta = await run(iconv.encode(html('<meta charset="utf-8">', LATIN1_FR), 'latin1'), 'text/html');
    expect(meta.error).toBeInstanceOf(Utf8Error);
    expect(meta.error?.description).toMatch(/declared UTF-8 \(meta\) but invalid UTF-8 at byte \d+ \(0xe9\)/);
    const header = await run(iconv.encode(LATIN1_FR, 'latin1'), 'text/plain; charset=UTF-8');
    expect(header.error).toBeInstanceOf(Utf8Error);
  });

  it('an unknown charset label fails with charset_error', async () => {
    const out = await run(utf8('<p>x</p>'), 'text/html; charset=klingon-8');
    expect(out.error).toBeInstanceOf(FormatError);
    expect(out.error).toMatchObject({ processor: 'charset', error_code: PROCESSING_ERROR_CODES.charset_error });
    expect(PROCESSING_ERROR_CODES.charset_error).toBe(108);
    expect(out.error?.description).toBe('attribute "body": unknown character set "klingon-8" (content type)');
  });

  it('leaves PDF, DOCX, images and string bodies alone', async () => {
    for (const [body, type] of [[pdf, 'application/pdf'], [docx, DOCX], [PNG, 'image/png']] as const) {
      const out = await run(body, type);
      expect(out.error).toBeUndefined();
      expect(out.doc?.document_attributes[0]).toBeInstanceOf(BytearrayAttribute);
      expect(attrsOf(out.doc)['charset']).toBeUndefined();
    }
    const s = await pipeline({ type: 'charset' }).run(itemOf('d1', { body: 'déjà', content_type: 'text/plain' }));
    expect(attrsOf(s.doc)).toEqual({ body: 'déjà', content_type: 'text/plain' });
  });
});

describe('pdf stage', () => {
  it('a PDF becomes its text, its title and its page count', async () => {
    const out = await pipeline({ type: 'pdf' }).run(itemOf('d1', { body: pdf, content_type: 'application/pdf' }));
    expect(out.error).toBeUndefined();
    const a = attrsOf(out.doc);
    expect(a['body']).toContain('The quick brown fox jumps over the lazy dog.');
    expect(a['body']).toContain('zebras and quokkas');
    expect(a).toMatchObject({ title: 'Annual report: naïve café', pages: 2 });
  });

  it('an existing title is kept; a PDF without a title gets none', async () => {
    const kept = await pipeline({ type: 'pdf' }).run(itemOf('d1', { title: 'Mine', body: pdf, content_type: 'application/pdf' }));
    expect(attrsOf(kept.doc)['title']).toBe('Mine');
    const untitled = await pipeline({ type: 'pdf' }).run(itemOf('d1', { body: await makePdf(undefined, ['words']), content_type: 'application/pdf' }));
    expect(attrsOf(untitled.doc)).toMatchObject({ body: 'words', pages: 1 });
    expect(attrsOf(untitled.doc)['title']).toBeUndefined();
  });

  it.each([
    ['truncated', () => pdf.subarray(0, 400)],
    ['garbage after %PDF', () => utf8('%PDF-1.7\nthis is not a PDF at all, just words and more words\n')],
  ])('a %s PDF fails with pdf_error', async (_what, bytes) => {
    const out = await pipeline({ type: 'pdf' }).run(itemOf('d1', { body: bytes(), content_type: 'application/pdf' }));
    expect(out.error).toBeInstanceOf(FormatError);
    expect(out.error).toMatchObject({ processor: 'pdf', error_code: PROCESSING_ERROR_CODES.pdf_error });
    expect(PROCESSING_ERROR_CODES.pdf_error).toBe(109);
    expect(out.error?.description).toMatch(/^attribute "body": cannot read the PDF \(\d+ bytes\): .+/);
  });

  it('leaves other content alone, and keeps the bytes of the document it read', async () => {
    const html = await pipeline({ type: 'pdf' }).run(itemOf('d1', { body: utf8('<p>x'), content_type: 'text/html' }));
    expect(html.doc?.document_attributes[0]).toBeInstanceOf(BytearrayAttribute);
    const copy = pdf.slice();
    await pipeline({ type: 'pdf' }).run(itemOf('d1', { body: copy, content_type: 'application/pdf' }));
    expect(Buffer.from(copy).equals(Buffer.from(pdf))).toBe(true);
  });
});

describe('docx stage', () => {
  it('a DOCX becomes its text; the title of docProps/core.xml', async () => {
    expect(docxTitle(docx)).toBe('Minutes of the meeting');
    const out = await pipeline({ type: 'docx' }).run(itemOf('d1', { body: docx, content_type: DOCX }));
    expect(out.error).toBeUndefined();
    const a = attrsOf(out.doc);
    expect(a['body']).toContain('Hello naïve café world.');
    expect(a['body']).toContain('Second paragraph about quokkas.');
    expect(a['title']).toBe('Minutes of the meeting');
  });

  it('a truncated DOCX (the zip cut in half) fails with docx_error', async () => {
    const out = await pipeline({ type: 'docx' }).run(itemOf('d1', { body: docx.subarray(0, docx.length >> 1), content_type: DOCX }));
    expect(out.error).toBeInstanceOf(FormatError);
    expect(out.error).toMatchObject({ processor: 'docx', error_code: PROCESSING_ERROR_CODES.docx_error });
    expect(PROCESSING_ERROR_CODES.docx_error).toBe(110);
    expect(out.error?.description).toMatch(/^attribute "body": cannot read the DOCX \(\d+ bytes\): .+/);
  });

  it('leaves other content alone', async () => {
    const out = await pipeline({ type: 'docx' }).run(itemOf('d1', { body: pdf, content_type: 'application/pdf' }));
    expect(out.doc?.document_attributes[0]).toBeInstanceOf(BytearrayAttribute);
  });
});

describe('title stage', () => {
  it('the file name of the url when there is no title; a title is kept', async () => {
    const out = await pipeline({ type: 'title' }).run(itemOf('d1', { url: 'file:///docs/Caf%C3%A9%20notes.txt#top', body: 'x' }));
    expect(attrsOf(out.doc)['title']).toBe('Café notes.txt');
    const kept = await pipeline({ type: 'title' }).run(itemOf('d1', { url: 'file:///a.txt', title: 'Mine' }));
    expect(attrsOf(kept.doc)['title']).toBe('Mine');
    const dir = await pipeline({ type: 'title' }).run(itemOf('d1', { url: 'http://x.org/' }));
    expect(attrsOf(dir.doc)['title']).toBeUndefined();
  });
});

describe('default pipeline with real documents', () => {
  it('is detect, charset, pdf, docx, utf8, xml, html, title, normalize', () => {
    expect(defaults().stages.map((s) => s.type)).toEqual(['detect', 'charset', 'pdf', 'docx', 'utf8', 'xml', 'html', 'title', 'normalize']);
  });

  it('a PDF and a DOCX fed as octet-stream become text with their titles', async () => {
    const p = await defaults().run(itemOf('d1', { url: 'file:///r.pdf', body: pdf, content_type: 'application/octet-stream' }));
    expect(p.error).toBeUndefined();
    expect(attrsOf(p.doc)).toMatchObject({ content_type: 'application/pdf', format: 'pdf', title: 'Annual report: naïve café', pages: 2 });
    expect(attrsOf(p.doc)['body']).toMatch(/lazy dog\. Second page/);
    const d = await defaults().run(itemOf('d2', { url: 'file:///m.docx', body: docx }));
    expect(attrsOf(d.doc)).toMatchObject({ content_type: DOCX, format: 'docx', title: 'Minutes of the meeting', body: 'Hello naïve café world. Second paragraph about quokkas.' });
  });

  it('Latin-1 HTML becomes text with its <title>; Shift_JIS text gets the file name as title', async () => {
    const h = await defaults().run(itemOf('d1', { url: 'file:///fr.html', body: iconv.encode(html('<meta charset="latin1">', LATIN1_FR), 'latin1'), content_type: 'text/html' }));
    expect(attrsOf(h.doc)).toMatchObject({ body: LATIN1_FR, title: 'Titre', charset: 'windows-1252', format: 'html' });
    const j = await defaults().run(itemOf('d2', { url: 'file:///ja/%E6%97%A5%E6%9C%AC.txt', body: iconv.encode(JA, 'shift_jis'), content_type: 'text/plain' }));
    expect(attrsOf(j.doc)).toMatchObject({ body: JA, title: '日本.txt', format: 'text' });
  });

  it('a broken PDF, a truncated DOCX, a PNG and declared-UTF-8 Latin-1 fail with their own errors; binary: metadata is the default', async () => {
    const names = async (attrs: Parameters<typeof itemOf>[1]) => {
      const out = await defaults().run(itemOf('d', attrs));
      return out.error ? `${out.error.processor}:${out.error.error_code}` : 'ok';
    };
    expect(await names({ body: pdf.subarray(0, 300) })).toBe(`pdf:${PROCESSING_ERROR_CODES.pdf_error}`);
    expect(await names({ body: docx.subarray(0, docx.length >> 1), content_type: DOCX })).toBe(`docx:${PROCESSING_ERROR_CODES.docx_error}`);
    expect(await names({ body: iconv.encode(html('<meta charset="utf-8">', LATIN1_FR), 'latin1'), content_type: 'text/html' })).toBe(`charset:${PROCESSING_ERROR_CODES.utf8_error}`);
    const png = await defaults().run(itemOf('d', { url: 'file:///p.png', body: PNG }));
    expect(attrsOf(png.doc)).toEqual({ url: 'file:///p.png', content_type: 'image/png', size: PNG.length, format: 'image', title: 'p.png' });
  });

  it('a 1 KB UTF-8 text document goes through as before, plus size, format, charset and title', async () => {
    const text = 'word '.repeat(200).trim();
    const out = await defaults().run(itemOf('d', { url: 'file:///a.txt', body: utf8(text), content_type: 'text/plain' }));
    expect(attrsOf(out.doc)).toEqual({ url: 'file:///a.txt', body: text, content_type: 'text/plain', size: text.length, format: 'text', charset: 'utf-8', title: 'a.txt' });
  });

  it('a 20 MB HTML page goes through the whole default pipeline in linear time', async () => {
    const para = '<p>Naïve café paragraph with <a href="/x">a link</a> and some more words to index, “quoted”.</p>\n';
    const big = utf8(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Big</title></head><body>${para.repeat(Math.ceil((20 << 20) / utf8(para).length))}</body></html>`);
    const t0 = performance.now();
    const out = await defaults().run(itemOf('big', { url: 'file:///big.html', body: big, content_type: 'text/html' }), { debug: false });
    const ms = performance.now() - t0;
    expect(out.error).toBeUndefined();
    expect(attrsOf(out.doc)).toMatchObject({ title: 'Big', size: big.length, charset: 'utf-8' });
    expect(String(attrsOf(out.doc)['body']).length).toBeGreaterThan(14 << 20);
    console.log(`20 MB HTML (${big.length} bytes) through the default pipeline: ${ms.toFixed(0)} ms; ${out.stages.map((s) => `${s.stage} ${(s.work * 1000).toFixed(0)}`).join(', ')}`);
    expect(ms).toBeLessThan(30_000);
  }, 60_000);
});
