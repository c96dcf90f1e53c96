/**
 * Garbage collection mode of a service process.
 *
 *   useNonIncrementalMarking();   // first thing in main.ts, before the service allocates
 *
 * For pass-through services with a small heap of their own: V8's incremental marking starts full collections far
 * more often than such a heap needs; without it the old generation is collected only at its limit, in one short
 * pause. Set at run time rather than on the node command line, so that it holds however the service is started.
 */
import { setFlagsFromString } from 'node:v8';

export function useNonIncrementalMarking(): void {
  setFlagsFromString('--no-incremental-marking');
}
