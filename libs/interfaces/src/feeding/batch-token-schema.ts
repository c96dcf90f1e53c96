import { z } from 'zod';

/**
 * Ours, not the spec's: the distributor's token for one dispatched batch (an HMAC of its session and operations,
 * base64url), an optional last argument of processor_server::process and coreprocessing::session::process. Callers
 * of the spec's signatures send none; an indexer that holds the batch key then refuses the batch.
 */
export const batchTokenSchema = z
  .string()
  .max(256)
  .nullish()
  .transform((v) => v ?? undefined);
