/** The part of jschardet (a port of Mozilla's universal charset detector, no types of its own) the charset stage uses. */
declare module 'jschardet' {
  export interface Detected {
    encoding: string | null;
    confidence: number;
  }
  export function detect(input: Buffer | string, options?: { minimumThreshold?: number; detectEncodings?: string[] }): Detected;
  const jschardet: { detect: typeof detect };
  export default jschardet;
}
