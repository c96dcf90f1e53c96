import type { z } from 'zod';
import type { Stage } from '../stage';
import { charsetOptions, createCharsetStage } from './charset';
import { createDetectStage, detectOptions } from './detect';
import { createDocxStage, docxOptions } from './docx';
import { createDropStage, dropOptions } from './drop';
import { createFailStage, failOptions } from './fail';
import { createHtmlStage, htmlOptions } from './html';
import { createMapStage, mapOptions } from './map';
import { createNormalizeStage, normalizeOptions } from './normalize';
import { createPdfStage, pdfOptions } from './pdf';
import { createTitleStage, titleOptions } from './title';
import { createUtf8Stage, utf8Options } from './utf8';
import { createXmlStage, xmlOptions } from './xml';

interface StageType<S extends z.ZodType> {
  readonly options: S;
  readonly create: (name: string, options: z.output<S>) => Stage;
  readonly doc: string;
}

function stageType<S extends z.ZodType>(t: StageType<S>): StageType<z.ZodType> {
  return t as unknown as StageType<z.ZodType>;
}

/** Every stage type of the pipeline configuration, with its options schema. */
export const STAGE_TYPES: Readonly<Record<string, StageType<z.ZodType>>> = Object.freeze({
  detect: stageType({ options: detectOptions, create: createDetectStage, doc: 'content type, size and format from the bytes; binary content indexed by its metadata or refused (unsupported_format)' }),
  charset: stageType({ options: charsetOptions, create: createCharsetStage, doc: 'text in bytes decoded in its declared or detected character set (charset_error, utf8_error)' }),
  pdf: stageType({ options: pdfOptions, create: createPdfStage, doc: 'PDF to text; title and page count (pdf_error)' }),
  docx: stageType({ options: docxOptions, create: createDocxStage, doc: 'Word (DOCX) to text; title (docx_error)' }),
  utf8: stageType({ options: utf8Options, create: createUtf8Stage, doc: 'bytearray attributes must be valid UTF-8 (utf8_error); decodes them to strings' }),
  xml: stageType({ options: xmlOptions, create: createXmlStage, doc: 'XML content must be well-formed (xml_error)' }),
  html: stageType({ options: htmlOptions, create: createHtmlStage, doc: 'HTML to text; title and links extracted' }),
  title: stageType({ options: titleOptions, create: createTitleStage, doc: 'the file name of the url as title when there is none' }),
  normalize: stageType({ options: normalizeOptions, create: createNormalizeStage, doc: 'Unicode NFC/NFKC, whitespace, control characters' }),
  map: stageType({ options: mapOptions, create: createMapStage, doc: 'copy / rename / remove / set attributes' }),
  drop: stageType({ options: dropOptions, create: createDropStage, doc: 'operation_dropped when an attribute matches a pattern' }),
  fail: stageType({ options: failOptions, create: createFailStage, doc: 'fails, warns about or holds up chosen items: for tests and drills' }),
});

export { charsetName, decideCharset } from './charset';
export { detectType } from './detect';
export { docxTitle, zipEntry } from './docx';
export { collapseLines, extractHtml, extractHtmlCooperatively } from './html';
export { extractPdf } from './pdf';
export { firstInvalidUtf8, firstLoneSurrogate } from './utf8';
export { xmlWellFormednessError } from './xml';
export { normalizeText, normalizeTextCooperatively } from './normalize';
