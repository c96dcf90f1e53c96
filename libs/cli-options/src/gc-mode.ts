/**
 * Garbage collection mode of a service process.
 *
 *   useNonIncrementalMarking();   // first thing in main.ts, before the service allocates
 *
 * V8 normally runs full (mark-compact) collections incrementally, started ahead of need by a task. A process that
 * passes large buffers through and keeps a small JS heap of its own (the content distributor: 100 KB batches in and
 * out, about 17 MB live) met V8's start heuristic every 15-20 batches in bench:feed: 34-47 full collections where a
 * heap that small needs one or two, a third of the process's CPU in marking and sweeping threads, and re-compilations
 * after the bytecode flushing that each full collection ages. Without incremental marking V8 collects the old
 * generation only when it reaches its limit, in one pause (16-22 ms measured for that heap), and the distributor's
 * CPU per batch went from 2.2-2.7 to 1.25-1.4 ms. For services with a large heap, incremental marking (short pauses)
 * is the better trade; this is for the small-heap pass-through ones.
 *
 * Set at run time (v8.setFlagsFromString) rather than on the node command line, so that it holds however the service
 * is started (nx serve, the launcher, docker compose, the tests' child processes). V8 reads this flag whenever it
 * decides to start marking, so setting it before the service has allocated much is enough.
 */
import { setFlagsFromString } from 'node:v8';

export function useNonIncrementalMarking(): void {
  setFlagsFromString('--no-incremental-marking');
}
