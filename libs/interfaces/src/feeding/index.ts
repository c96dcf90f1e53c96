/**
 * The feeding-chain interfaces our specs name but leave to MS-FSCF / MS-FSDP: the content client's session and
 * callbacks, the indexing dispatcher's session factory and session, and the indexer's search interface.
 */
export * from './feeding-types';
export * from './operation-callback';
export * from './processing-session';
export * from './core-session';
export * from './search';
export * from './content-ref';
export * from './batch-token';
export * from './batch-token-schema';
