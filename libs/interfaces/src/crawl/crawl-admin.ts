import { z } from 'zod';
import { defineInterface, method } from '../define-interface';
import { registerUserException, UserException } from '../user-exceptions';

/**
 * The administration of a crawl cluster, served by its multinode scheduler (ours: MS-FSCADM, which defines the
 * crawler's administration, is not among our specs). It creates or updates a collection's crawl, reports progress
 * and whether the crawl is done, and passes the operator commands of MS-FSCMT (CMD_ADM_*, CMD_UM_*) to the node
 * schedulers. It answers on a subject of the crawl cluster (@esp/crawl-bus crawlAdminSubject), so a client needs
 * nothing but NATS.
 */

/** The crawl's defaults when the caller leaves a setting out: polite for real sites, bounded. */
export const CRAWL_DEFAULTS = { delay_s: 1, max_depth: 10, max_doc: 1000, refresh_min: 0 } as const;

export const collectionNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a collection name is letters, digits, "_", "." and "-" (64 at most), not starting with a symbol');

export const uriRulesSchema = z.object({
  prefix: z.array(z.string()),
  suffix: z.array(z.string()),
  exact: z.array(z.string()),
  regexp: z.array(z.string()),
});
export type UriRulesSpec = z.output<typeof uriRulesSchema>;

export const crawlSpecSchema = z.object({
  collection: collectionNameSchema,
  start_uris: z.array(z.string().url()).min(1),
  /** Only URIs matching one of these rules are crawled; null: the start URIs' sites (scheme://host[:port]/). */
  include: uriRulesSchema.nullable(),
  exclude: uriRulesSchema.nullable(),
  /** Seconds between two requests to one site. */
  delay_s: z.number().min(0).max(3600),
  /** Links followed from a start URI at most; null: no bound (crawlmode FULL). */
  max_depth: z.number().int().min(0).nullable(),
  /** Documents per site at most; 0: no bound. */
  max_doc: z.number().int().min(0),
  robots: z.boolean(),
  sitemaps: z.boolean(),
  /** Minutes between the starts of two crawl rounds (known pages fetched again, conditionally); 0: no rounds. */
  refresh_min: z.number().min(0).max(525_600),
});
export type CrawlSpec = z.output<typeof crawlSpecSchema>;

export const crawlCommandSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('suspend') }),
  z.object({ kind: z.literal('resume') }),
  z.object({ kind: z.literal('refresh') }),
  z.object({ kind: z.literal('delete_site'), site: z.string().min(1) }),
  z.object({ kind: z.literal('delete_uris'), uris: z.array(z.string().url()).min(1) }),
  z.object({ kind: z.literal('quarantine'), site: z.string().min(1), seconds: z.number().int().min(1), requeue: z.boolean() }),
  z.object({ kind: z.literal('preempt'), site: z.string().min(1), requeue: z.boolean() }),
  z.object({ kind: z.literal('reprocess'), site: z.string().min(1), uri_prefix: z.string() }),
  z.object({ kind: z.literal('feeding_suspend'), suspend: z.boolean() }),
  z.object({ kind: z.literal('urgent'), uris: z.array(z.string().url()).min(1) }),
  /** The crawl removed from the cluster (its configuration file too), with the documents it fed (CMD_ADM_CONF_REMOVE). */
  z.object({ kind: z.literal('delete') }),
]);
export type CrawlCommand = z.output<typeof crawlCommandSchema>;

export const crawlNodeStatusSchema = z.object({
  node: z.string(),
  /** Nothing queued or in flight for the collection, as of its last report. */
  idle: z.boolean(),
  queued: z.number().int(),
  in_flight: z.number().int(),
  /** Milliseconds since its last report (-1: none yet). */
  reported_ms_ago: z.number().int(),
});

export const crawlSiteStatusSchema = z.object({
  site: z.string(),
  node: z.string(),
  fetched: z.number().int(),
  queued: z.number().int(),
  /** Fetch errors (connection refused, HTTP 5xx, 404...), and the last one's reason. */
  errors: z.number().int().optional(),
  last_error: z.string().optional(),
  /** Why the site is held back now (e.g. its robots.txt is unreachable), and in how many ms it is tried again. */
  held: z.string().optional(),
  next_try_ms: z.number().int().optional(),
});

export const crawlStatusSchema = z.object({
  collection: z.string(),
  /** active, suspended, removing, ... (FSCMT_CONF_STATES) */
  state: z.string(),
  epoch: z.number().int(),
  /** Entries waiting at the multinode scheduler (to be routed, or waiting for DNS). */
  queued: z.number().int(),
  nodes: z.array(crawlNodeStatusSchema),
  /** The counters of every node summed (fetched, fed, duplicates, errors, excluded, ...). */
  stats: z.record(z.string(), z.number()),
  sites: z.array(crawlSiteStatusSchema),
  /** Nothing queued anywhere and every node idle for the settle period: the crawl is over until a refresh. */
  done: z.boolean(),
});
export type CrawlStatus = z.output<typeof crawlStatusSchema>;

export const crawlAdminInterface = defineInterface({
  type: 'crawl::admin',
  version: '1.0',
  doc: "A crawl cluster's administration, served by its multinode scheduler: crawls, progress, operator commands.",
  methods: {
    set_crawl: method({
      params: [['spec', crawlSpecSchema]],
      returns: z.object({ collection: z.string(), created: z.boolean(), include: uriRulesSchema, file: z.string(), registered: z.boolean() }),
      raises: ['crawl_spec_invalid', 'collection_not_registered'],
      doc:
        'Creates the crawl of a collection, or updates it (a new epoch: the start URIs are crawled again). With a config ' +
        'service the collection is first made known to the feeding chain (registered). file: where the configuration was written.',
    }),
    status: method({
      params: [['collection', z.string()]],
      returns: z.array(crawlStatusSchema),
      raises: ['unknown_collection'],
      doc: 'The progress of a collection ("" = every collection).',
    }),
    command: method({
      params: [
        ['collection', collectionNameSchema],
        ['command', crawlCommandSchema],
      ],
      returns: z.object({ message: z.string(), nodes: z.number().int() }),
      raises: ['unknown_collection', 'crawl_spec_invalid'],
      doc:
        'An operator command, sent as the MS-FSCMT message it names to every node scheduler (or queued, for urgent URIs). ' +
        'delete removes the crawl and its configuration file (crawl_spec_invalid when another configuration file defines the collection).',
    }),
  },
});

/** The crawl configuration given does not make a valid DomainSpecification. */
export class CrawlSpecInvalid extends UserException {
  override name = 'CrawlSpecInvalid';
  override readonly code = 'crawl_spec_invalid';
}

/** The collection could not be made known to the feeding chain (no config service answered): nothing was crawled. */
export class CollectionNotRegistered extends UserException {
  override name = 'CollectionNotRegistered';
  override readonly code = 'collection_not_registered';
  override readonly retryable = true;
}

registerUserException(CrawlSpecInvalid);
registerUserException(CollectionNotRegistered);
