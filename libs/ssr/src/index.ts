/**
 * @esp/ssr: session replication in the SailFin SSR design (the SailFin session replication specification).
 *
 *   import { SsrNode, NatsSsrTransport } from '@esp/ssr';
 *   const node = new SsrNode({ name: 'cd-1', transport: new NatsSsrTransport(mw.bus, 'feeding'), waitForAck: true });
 *   await node.start();
 *   await node.put('session-42', body, { nextFire: Date.now() + 60_000 });   // on the home instance of the key
 *   const s = await node.get('session-42');   // active copy, or reactivated from a replica after a failure
 */
export { type Artifact, hashKey } from './artifact';
export { ConsistentHashRouter } from './consistent-hash';
export { Membership, makeView, buddyOf, sourceOf, memberKey, nameOfKey, type Member, type View, type MembershipEvent, type MembershipOptions } from './membership';
export { ArtifactCache, type ActiveEntry, type ReplicaEntry } from './caches';
export { type SsrMessage, type IdVersion, isSsrMessage } from './messages';
export { type SsrTransport } from './transport';
export { SsrNode, type SsrNodeOptions, type PutOptions, type CensusEntry } from './ssr-node';
export { saveSnapshot, loadSnapshot, type SsrSnapshot } from './snapshot';
export { SsrError, SsrBusy, SsrUnavailable, SsrQuiescing, SsrNotHome, SsrNotFound, SsrBadRequest, ssrErrorFromCode } from './errors';
export { ssrSubjects, type SsrSubjects } from './subjects';
export { NatsSsrTransport } from './nats-transport';
export { serveSsrNode, ssrCodec, type NodeServiceOptions } from './node-service';
export { SsrClient, type SsrClientOptions } from './ssr-client';
