/**
 * @esp/content-client: feed documents into a collection and learn the fate of every one.
 *
 *   import { FeedingClient } from '@esp/content-client';
 *   const client = await FeedingClient.open({ mw, collection: 'news', log });
 *   await client.feed({ id: 'doc-1', attributes: { title: 'Hello', body: '<p>world</p>' } });
 *   const { stats, outcomes, unfinished } = await client.drain();
 */
export { FeedingClient, type FeedingClientOptions, type FeedingStats, type DocumentOutcome, type ErrorSummary } from './feeding-client';
export { toOperation, type FeedDocument, type DocumentContent } from './feed-document';
