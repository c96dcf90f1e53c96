import { z } from 'zod';
import type { Stage, StageContext } from '../stage';
import { fileNameOf } from './content-type';

export const titleOptions = z.strictObject({
  /** Where the title goes (default "title"); a document with a non-empty title keeps it. */
  title_attribute: z.string().default('title'),
  /** The document's URL (default "url"): the last segment of its path is the title. */
  url_attribute: z.string().default('url'),
});
export type TitleOptions = z.output<typeof titleOptions>;

/**
 * title: a document without a title (plain text, a PDF without one in its metadata...) gets its file name, the last
 * segment of its URL's path, percent-decoded. Put it after the stages that find titles in the content (html, pdf, docx).
 */
export function createTitleStage(name: string, o: TitleOptions): Stage {
  return {
    name,
    type: 'title',
    process(ctx: StageContext) {
      const title = ctx.doc.getString(o.title_attribute);
      if (title !== undefined && title.trim() !== '') return;
      const file = fileNameOf(ctx.doc.getString(o.url_attribute));
      if (file !== undefined) ctx.doc.setString(o.title_attribute, file);
    },
  };
}
