import { BytearrayAttribute } from '@esp/codecs';
import { z } from 'zod';
import { StageFailure, type Stage, type StageContext } from '../stage';
import { PDF_TYPE, mimeOf } from './content-type';
import { wellFormed } from './utf8';

export const pdfOptions = z.strictObject({
  /** The attribute holding the PDF (default "body"); its text replaces it. */
  attribute: z.string().default('body'),
  /** The attribute holding the MIME type (default "content_type"): application/pdf is converted. */
  content_type_attribute: z.string().default('content_type'),
  /** Where the PDF's title (its document information Title) goes; an existing non-empty title is kept. */
  title_attribute: z.string().default('title'),
  /** Where the number of pages goes (default "pages"). */
  pages_attribute: z.string().default('pages'),
});
export type PdfOptions = z.output<typeof pdfOptions>;

/** The text (pages joined by spaces), title and page count of a PDF, with pdf.js (through unpdf). */
export async function extractPdf(bytes: Uint8Array): Promise<{ text: string; title: string | undefined; pages: number }> {
  // loaded on the first PDF: pdf.js is large, and most item processors start and serve text only
  const { extractText, getDocumentProxy, getMeta } = await import('unpdf');
  // a copy: pdf.js may take the buffer over, and the attribute's bytes can be a view into the whole received batch
  const proxy = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  try {
    const { totalPages, text } = await extractText(proxy, { mergePages: true });
    const { info } = await getMeta(proxy);
    const title = (info as { Title?: unknown } | undefined)?.Title;
    return { text: wellFormed(text), title: typeof title === 'string' && title.trim() !== '' ? title.trim() : undefined, pages: totalPages };
  } finally {
    await proxy.destroy();
  }
}

/**
 * pdf: a PDF (content type application/pdf, as the detect stage sets it from the bytes) becomes its text; its
 * title and page count go into attributes. A PDF that pdf.js cannot read (truncated, garbage, encrypted) fails the
 * item with pdf_error. Other content is left alone.
 */
export function createPdfStage(name: string, o: PdfOptions): Stage {
  return {
    name,
    type: 'pdf',
    async process(ctx: StageContext) {
      const body = ctx.doc.get(o.attribute);
      if (!(body instanceof BytearrayAttribute) || mimeOf(ctx.doc.getString(o.content_type_attribute)) !== PDF_TYPE) return;
      let pdf: Awaited<ReturnType<typeof extractPdf>>;
      try {
        pdf = await extractPdf(body.value);
      } catch (err) {
        const e = err as Error;
        const why = e?.name === 'PasswordException' ? 'it is encrypted' : (e?.message ?? String(err));
        throw new StageFailure('pdf_error', `attribute "${o.attribute}": cannot read the PDF (${body.value.length} bytes): ${why}`);
      }
      ctx.doc.setString(o.attribute, pdf.text);
      ctx.doc.setScalar(o.pages_attribute, pdf.pages);
      const existing = ctx.doc.getString(o.title_attribute);
      if (pdf.title !== undefined && (existing === undefined || existing.trim() === '')) ctx.doc.setString(o.title_attribute, pdf.title);
      if (pdf.text.trim() === '') ctx.warn(`the PDF has no text (${pdf.pages} pages): scanned images?`);
      if (ctx.debugging) ctx.debug(`PDF to text: ${pdf.pages} pages, ${pdf.text.length} characters, title ${pdf.title ? JSON.stringify(pdf.title) : 'none'}`);
    },
  };
}
