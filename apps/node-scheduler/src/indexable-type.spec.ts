import { describe, expect, it } from 'vitest';
import { gzipHtml, latin1Html, makeDocx, makePdf, makePng } from '../test/documents';
import { declaredFormat, indexableType } from './indexable-type';

const html = new TextEncoder().encode('<!doctype html><html><body><p>hello</p></body></html>');
const css = new TextEncoder().encode('body { color: red; }\n');

describe('indexable type', () => {
  it('HTML, XHTML, XML types, plain text by their header; CSS, scripts, images, fonts, JSON are not indexed', () => {
    expect(declaredFormat('text/html')).toBe('html');
    expect(declaredFormat('application/xhtml+xml')).toBe('html');
    expect(declaredFormat('text/xml')).toBe('xml');
    expect(declaredFormat('application/xml')).toBe('xml');
    expect(declaredFormat('application/rss+xml')).toBe('xml');
    expect(declaredFormat('text/plain')).toBe('text');
    for (const t of ['text/css', 'application/javascript', 'text/javascript', 'image/png', 'image/svg+xml', 'font/woff2', 'application/json', 'application/zip']) {
      expect(declaredFormat(t), t).toBeUndefined();
    }
  });

  it('an HTML page with its charset in the header is HTML (Latin-1 bytes included); CSS is not', async () => {
    expect(await indexableType('text/html; charset=utf-8', html)).toEqual({ indexable: true, format: 'html' });
    expect(await indexableType('text/html; charset=ISO-8859-1', latin1Html())).toEqual({ indexable: true, format: 'html' });
    expect(await indexableType('TEXT/PLAIN', css)).toEqual({ indexable: true, format: 'text' });
    const d = await indexableType('text/css; charset=utf-8', css);
    expect(d).toEqual({ indexable: false, reason: 'served as text/css, a type the pipeline does not index' });
  });

  it('text declared for bytes with a byte order mark stays text (FF FE also opens an MPEG frame)', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html><body>x</body></html>', 'utf16le')]);
    expect(await indexableType('text/html', utf16)).toEqual({ indexable: true, format: 'html' });
    expect(await indexableType('text/plain', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('ab', 'utf16le').swap16()]))).toEqual({ indexable: true, format: 'text' });
    expect((await indexableType('image/png', utf16)).indexable).toBe(false);
  });

  it('the bytes win over the header: a PNG served as text/html is a PNG; gzip bytes never decompressed are not HTML', async () => {
    const png = makePng();
    expect(new TextDecoder('latin1').decode(png)).toContain('IHDR');
    expect(await indexableType('text/html', png)).toEqual({ indexable: false, reason: 'the bytes are image/png, served as text/html' });
    expect(await indexableType('image/png', png)).toMatchObject({ indexable: false });
    expect(await indexableType('text/html', gzipHtml('<p>x</p>'))).toEqual({ indexable: false, reason: 'the bytes are application/gzip, served as text/html' });
  });

  it('PDF and DOCX by their magic numbers whatever the header says; a declared PDF that is not one is not fed', async () => {
    const pdf = await makePdf('A portable document');
    const docx = await makeDocx('A word document');
    for (const header of ['application/pdf', 'application/octet-stream', '', 'text/html']) {
      expect(await indexableType(header, pdf), header).toEqual({ indexable: true, format: 'pdf' });
    }
    for (const header of ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/octet-stream']) {
      expect(await indexableType(header, docx), header).toEqual({ indexable: true, format: 'docx' });
    }
    expect(await indexableType('application/pdf', html)).toEqual({ indexable: false, reason: 'served as application/pdf, but the bytes are not PDF' });
  });

  it('an XML prolog is XML unless the header says XHTML; an untyped body that opens as HTML is HTML, else not fed', async () => {
    const xml = new TextEncoder().encode('<?xml version="1.0" encoding="ISO-8859-1"?>\n<rss version="2.0"><channel><title>t</title></channel></rss>');
    expect(await indexableType('application/rss+xml', xml)).toEqual({ indexable: true, format: 'xml' });
    expect(await indexableType('application/octet-stream', xml)).toEqual({ indexable: true, format: 'xml' });
    const xhtml = new TextEncoder().encode('<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body>x</body></html>');
    expect(await indexableType('application/xhtml+xml', xhtml)).toEqual({ indexable: true, format: 'html' });
    expect(await indexableType('', html)).toEqual({ indexable: true, format: 'html' });
    expect(await indexableType('application/octet-stream', css)).toEqual({ indexable: false, reason: 'served as application/octet-stream, a type the pipeline does not index' });
    expect(await indexableType('', new Uint8Array(0))).toMatchObject({ indexable: false });
  });
});
