import { SaxesParser } from 'saxes';
import { z } from 'zod';
import { StageFailure, type Stage, type StageContext } from '../stage';
import { contentKind } from './content-type';

export const xmlOptions = z.strictObject({
  /** The attribute holding the content (default "body"). */
  attribute: z.string().default('body'),
  /** The attribute holding the MIME type (default "content_type"): XML types (text/xml, application/*+xml) are checked. */
  content_type_attribute: z.string().default('content_type'),
  /** Without a content type, check content that starts with an XML declaration (default true). */
  detect: z.boolean().default(true),
});
export type XmlOptions = z.output<typeof xmlOptions>;

/** The first well-formedness error of `text` as "line:column: message", or undefined when it is well-formed XML. */
export function xmlWellFormednessError(text: string): string | undefined {
  const parser = new SaxesParser({ xmlns: false, position: true });
  let first: string | undefined;
  let sawRoot = false;
  parser.on('error', (err) => {
    first ??= err.message;
  });
  parser.on('opentag', () => {
    sawRoot = true;
  });
  try {
    parser.write(text).close();
  } catch (err) {
    first ??= (err as Error).message;
  }
  if (first === undefined && !sawRoot) first = 'no root element';
  return first;
}

/** xml: content declared (or detected) as XML must be well-formed XML 1.0; fails the item with `xml_error` if not. */
export function createXmlStage(name: string, o: XmlOptions): Stage {
  return {
    name,
    type: 'xml',
    process(ctx: StageContext) {
      const body = ctx.doc.getText(o.attribute);
      if (body === undefined) return;
      if (!contentKind(ctx.doc, o.content_type_attribute, body, o.detect).xml) return;
      const problem = xmlWellFormednessError(body);
      if (problem !== undefined) throw new StageFailure('xml_error', `attribute "${o.attribute}" is not well-formed XML: ${problem}`);
      if (ctx.debugging) ctx.debug('well-formed XML');
    },
  };
}
