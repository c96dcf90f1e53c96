import { z } from 'zod';
import { defineInterface, method } from '../define-interface';
import { LEASE_TIMEOUT_NODE_CONTROLLER_LOOKUP } from '../processing/constants';

/** Where the configuration service is bound in the name server (MS-FSDPD 3.5.5). */
export const CONFIG_SERVICE_NAME = LEASE_TIMEOUT_NODE_CONTROLLER_LOOKUP.configServiceName;

/**
 * One registered module, as RegisterModule (MS-FSDPD 3.7.4.3, MS-FSCX ModuleRegister: port, type, version, name,
 * alerts) gave it, plus the host it is reached on: the ModuleRegister `host` member when the module sent one (our
 * extension), else the address its RegisterModule request came from.
 */
export const moduleRecordSchema = z.object({
  name: z.string(),
  type: z.string(),
  version: z.string(),
  host: z.string(),
  port: z.number().int().min(1).max(65535),
  /** The alert types the module wants ConfigurationChanged calls for ("collection", "configfile", ...). */
  alerts: z.array(z.string()),
  /** When it (last) registered, ms since the epoch. */
  registered_at: z.number().int(),
});
export type ModuleRecord = z.output<typeof moduleRecordSchema>;

/** A collection the config server holds: its name and the pipeline its documents go through. */
export const collectionRecordSchema = z.object({
  name: z.string().min(1),
  pipeline: z.string().min(1),
});
export type CollectionRecord = z.output<typeof collectionRecordSchema>;

/**
 * `configservice::config` 5.2, bound at "fds/configservice": the configuration service as the content distributor
 * uses it on a Lease Timeout (MS-FSDPD 3.5.5: get_active_module_list("NodeControl") gives the node controllers' ports).
 * MS-FSCMW, which defines the interface in full, is not among our specs: get_active_module_list is the method
 * MS-FSDPD names; get_collections is ours (the collections the config server holds).
 */
export const configServiceInterface = defineInterface({
  type: LEASE_TIMEOUT_NODE_CONTROLLER_LOOKUP.configServiceInterfaceType,
  version: LEASE_TIMEOUT_NODE_CONTROLLER_LOOKUP.configServiceInterfaceVersion,
  doc: 'Configuration service: registered modules (XML-RPC RegisterModule) and collections (MS-FSDPD 3.5.5, 3.7.4.3).',
  methods: {
    get_active_module_list: method({
      params: [['module_type_name', z.string()]],
      returns: z.array(moduleRecordSchema),
      doc: 'The modules registered with this type (for example "NodeControl"), oldest registration first; [] when none.',
    }),
    get_collections: method({
      params: [],
      returns: z.array(collectionRecordSchema),
      doc: 'The collections of the configuration as last loaded (validated) from the config directory.',
    }),
    add_collection: method({
      params: [
        ['name', collectionRecordSchema.shape.name],
        ['pipeline', z.string()],
      ],
      returns: z.object({ added: z.boolean(), collections: z.array(collectionRecordSchema) }),
      raises: ['system_resource_error'],
      doc:
        'Ours: adds the collection (pipeline "" = the default pipeline) to <config-dir>/collections.json and reloads, so that every ' +
        'module learns it at once (ConfigurationChanged "collection"); added is false when it was there already. ' +
        'system_resource_error when the config server has no config directory or cannot write it.',
    }),
  },
});
