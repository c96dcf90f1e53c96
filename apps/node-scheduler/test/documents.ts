/**
 * Real documents of the types a crawler meets, made in the test: a PNG (signature, IHDR, IDAT, IEND), a PDF
 * (pdfkit), a DOCX (docx), Latin-1 HTML, gzip-compressed HTML.
 */
import { crc32, deflateSync, gzipSync } from 'node:zlib';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import PDFDocument from 'pdfkit';

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A 1x1 grey PNG. */
export function makePng(): Uint8Array {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]); // 1x1, 8-bit greyscale
  const idat = deflateSync(Buffer.from([0, 0x80])); // filter 0, one pixel
  return new Uint8Array(
    Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]),
  );
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
