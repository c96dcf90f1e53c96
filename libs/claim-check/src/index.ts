/**
 * @esp/claim-check: large document content out of band. Attributes too large for a batch go into the object store
 * (`mw.blobs()`) and travel as references; the next stage fetches and checks them.
 *
 *   const { docs, refs } = await checkOut(batchDocs, { store, thresholdBytes: 256 * 1024, budgetBytes, objectName });
 *   const { doc } = await checkIn(received, { store: (bucket) => mw.blobs({ bucket }), maxBytes: 100 * 1024 * 1024 });
 */
export { attributeBytes, documentBytes } from './attribute-size';
export { checkIn, hasContentRefs, type CheckInOptions } from './check-in';
export { checkOut, type CheckOutOptions, type CheckedOut } from './check-out';
export { ClaimCheckFailure } from './claim-check-failure';
export { CONTENT_RELEASE_SUBJECT, ContentReleaseError, releaseThroughStack, requestContentRelease, serveContentRelease, type ServeContentReleaseOptions } from './content-release';
