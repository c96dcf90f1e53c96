/**
 * A bad input: a line, a file, a link or a directory that cannot be fed, with where it is and why. The run goes on
 * with the other inputs; every input error is listed and makes the exit code 1.
 */
export class InputError extends Error {
  override name = 'InputError';
}

/** An input not fed on purpose (a binary type, a hidden entry, a second link to a file already fed). */
export interface Skip {
  /** The id the input would have had (its path as found). */
  id: string;
  /** Why, short and shared by many inputs: a MIME type ("image/png"), "hidden", "same file". */
  reason: string;
  /** For "same file": the id it was fed as. */
  sameAs?: string;
}
