import { z } from 'zod';
import { aorOf, fsidlLong, nonEmptyString } from '../processing/fsidl-types';

/** FSIDL types of the objects of the feeding chain that our specs name but do not define (MS-FSCF, MS-FSDP). */
export const CORE_SESSION_FACTORY_TYPE = 'coreprocessing::session_factory';
export const SEARCH_TYPE = 'indexing::search';

/** Where the indexing dispatcher binds its coreprocessing::session_factory. */
export const INDEXING_DISPATCHER_NAME = 'esp/subsystems/indexing/dispatcher';
/** Where the indexer binds its query interface. */
export const INDEX_SEARCH_NAME = 'esp/subsystems/indexing/search';

export const coreSessionFactoryAorSchema = aorOf(CORE_SESSION_FACTORY_TYPE);
export { nonEmptyString, fsidlLong };
export const attributeValueSchema = z.union([z.string(), z.number(), z.boolean(), z.instanceof(Uint8Array), z.array(z.unknown()), z.null()]);
