/**
 * Small byte copies carved out of shared slabs. V8 makes every ArrayBuffer allocation costly (each has its own
 * backing store), which dominated decoding and encoding of small messages; Node's Buffer pool solves the same
 * problem the same way. The price: a small copy keeps its 64 KiB slab alive for as long as it is referenced.
 */

const SLAB_BYTES = 64 * 1024;
const POOLED_MAX = 8 * 1024;

let slab = new Uint8Array(SLAB_BYTES);
let used = 0;

/** A private copy of `bytes` (a view into a slab when small). */
export function fswcuCopyBytes(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  if (n > POOLED_MAX) return bytes.slice();
  if (used + n > SLAB_BYTES) {
    slab = new Uint8Array(SLAB_BYTES);
    used = 0;
  }
  slab.set(bytes, used);
  // A view made with the constructor: about twice as cheap as subarray(), which looks up a species constructor.
  const copy = new Uint8Array(slab.buffer, used, n);
  // Keep copies 8-byte aligned so a DataView over one never straddles alignment oddly.
  used = (used + n + 7) & ~7;
  return copy;
}

/**
 * `text` as UTF-8 bytes, carved out of the slab when it is short ASCII (the usual FSCMT string: names, ids, URIs);
 * anything else goes through `encode` (the caller's TextEncoder, so the bytes are the same either way). This
 * replaces one ArrayBuffer per string, which dominated building small messages (and the GC after them).
 */
export function fswcuSlabAscii(text: string, encode: (text: string) => Uint8Array): Uint8Array {
  // anything but a short string (a caller outside TypeScript's checks) keeps TextEncoder's behaviour
  if (typeof text !== 'string' || text.length > POOLED_MAX) return encode(text);
  const n = text.length;
  if (used + n > SLAB_BYTES) {
    slab = new Uint8Array(SLAB_BYTES);
    used = 0;
  }
  const out = slab;
  const start = used;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    // not ASCII: leave the slab as it was (the bytes written so far are simply overwritten by the next use)
    if (c >= 0x80) return encode(text);
    out[start + i] = c;
  }
  used = (start + n + 7) & ~7;
  return new Uint8Array(out.buffer, start, n);
}
