/**
 * @esp/content-client: feed documents into a collection and learn the fate of every one.
 *
 *   import { FeedingClient } from '@esp/content-client';
 *   const client = await FeedingClient.open({ mw, collection: 'news', log });
 *   await client.feed({ id: 'doc-1', attributes: { title: 'Hello', body: '<p>world</p>' } });
 *   const { stats, outcomes, unfinished } = await client.drain();
 *
 * CallbackSender is the other end of the callbacks a FeedingClient receives: the indexer and the content distributor
 * deliver operation statuses to content clients with it.
 */
export { FeedingClient, type FeedingClientOptions, type FeedingStats, type DocumentOutcome, type ErrorSummary } from './feeding-client';
export { CallbackSender, DEFAULT_CALLBACK_RETRY, type CallbackSenderOptions, type CallbackRetry, type CallbackProxy } from './callback-sender';
export { toOperation, type FeedDocument, type DocumentContent } from './feed-document';
