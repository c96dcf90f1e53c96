/**
 * Real documents of the types a crawler meets, made in the test: a PNG (signature, IHDR, IDAT, IEND), a PDF
 * (pdfkit), a DOCX (docx), Latin-1 HTML, gzip-compressed HTML.
 */
import { tinyPng } from '@esp/testing';
import { gzipSync } from 'node:zlib';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import PDFDocument from 'pdfkit';

/** A 1x1 grey PNG. */
export function makePng(): Uint8Array {
  return new Uint8Array(tinyPng());
}

export function makePdf(text: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument();
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on('error', reject);
    doc.text(text);
    doc.end();
  });
}

export async function makeDocx(text: string): Promise<Uint8Array> {
  const doc = new Document({ sections: [{ children: [new Paragraph({ children: [new TextRun(text)] })] }] });
  return new Uint8Array(await Packer.toBuffer(doc));
}

/** HTML in ISO-8859-1: "Café crème, Ærø" with é = 0xE9 (not valid UTF-8). */
export function latin1Html(): Uint8Array {
  return new Uint8Array(Buffer.from('<html><head><title>Caf\u00e9</title></head><body><p>Caf\u00e9 cr\u00e8me, \u00c6r\u00f8</p></body></html>', 'latin1'));
}

export function gzipHtml(html: string): Uint8Array {
  return new Uint8Array(gzipSync(html));
}
