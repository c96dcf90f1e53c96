/**
 * @esp/ppp: the Paranoid Pirate Protocol (ZeroMQ RFC 6) on NATS, frames kept as the RFC has them.
 *
 *   import { PppClient, PppQueue, PppWorker } from '@esp/ppp';
 *   const mw = await Middleware.connect({ name: 'ppp-demo' });
 *   const queue = await PppQueue.start(mw.bus, { service: 'echo' });              // heartbeat 1000 ms, liveness 3
 *   const worker = await PppWorker.start(mw.bus, (content) => content, { service: 'echo' });
 *   const client = new PppClient(mw.bus, { service: 'echo', timeoutMs: 2500, retries: 3 });
 *   const [reply] = await client.request(new TextEncoder().encode('hello'));
 *
 * QueueMachine and WorkerMachine are the protocol as pure state machines (events in, actions out, time from a Clock).
 * Both beat with a HeartbeatSender and watch their peers with a LivenessTracker; anything else that speaks PPP
 * heartbeats (item processors → content distributor) uses the same two.
 */
export { encodeFrames, decodeFrames, PppFrameError, MAX_FRAMES } from './frames';
export {
  PPP_READY,
  PPP_HEARTBEAT,
  READY_FRAME,
  HEARTBEAT_FRAME,
  EMPTY_FRAME,
  HEARTBEAT_INTERVAL_MS,
  HEARTBEAT_LIVENESS,
  RECONNECT_INITIAL_MS,
  RECONNECT_MAX_MS,
  parsePppMessage,
  envelopeFrames,
  type PppMessage,
} from './protocol';
export { PppError, PppQueueFull, PppWorkerDied, PppNoReply, PppTimeout, PppNoResponders, pppErrorFromCode } from './errors';
export { QueueMachine, type QueueOptions, type QueueAction } from './queue-machine';
export { WorkerMachine, type WorkerOptions, type WorkerAction } from './worker-machine';
export { HeartbeatSender, type HeartbeatSenderOptions } from './heartbeat-sender';
export { LivenessTracker, type LivenessTrackerOptions, type TrackResult } from './liveness-tracker';
export { encodeLivenessMessage, decodeLivenessMessage, type LivenessMessage } from './liveness-message';
export { PppQueue, type PppQueueOptions } from './queue';
export { PppWorker, type PppWorkerOptions, type PppHandler } from './worker';
export { PppClient, type PppClientOptions } from './client';
export { pppSubjects, pppClientInbox, livenessSubject } from './subjects';
export { requestFrames, replyFrames, parseRequest, parseReply, failFrames } from './client-link';
