import { z } from 'zod';
import { aorSchema } from './aor';
import { defineInterface, method } from './define-interface';

const name = z.string().min(1).max(1024);
const interfaceType = z.string().min(1).max(256);
const version = z.string().regex(/^\d+\.\d+$/, 'must be "major.minor"');

export const bindingSchema = z.object({ name, aor: aorSchema, revision: z.number().int().nonnegative() });
export type Binding = z.output<typeof bindingSchema>;

/** Well-known object id of the name server; every instance serves the same subject in one queue group. */
export const NAME_SERVER_OBJECT_ID = 'fsmw.nameserver';

/**
 * The MS-FSMW name server as our bus sees it. Bindings are keyed by (name, interface_type): the specs bind several
 * interfaces under one name. Revisions come from the store and make unbind conditional.
 */
export const nameServerInterface = defineInterface({
  type: 'fsmw::nameserver',
  version: '1.0',
  doc: 'bind / resolve / unbind / list of server objects by (name, interface type)',
  methods: {
    bind: method({
      params: [['name', name], ['aor', aorSchema], ['rebind', z.boolean().default(false)]],
      returns: z.object({ revision: z.number().int() }),
      raises: ['already_bound'],
      doc: 'Create-if-absent. A second bind of a live key raises already_bound, unless rebind is true and it is the same object.',
    }),
    resolve: method({
      params: [['name', name], ['interface_type', interfaceType], ['interface_version', version]],
      returns: bindingSchema,
      raises: ['resolve_exception'],
      doc: 'The binding of (name, interface_type) if its version is compatible with interface_version (same major, minor >=).',
    }),
    unbind: method({
      params: [['name', name], ['interface_type', interfaceType], ['revision', z.number().int().nonnegative().nullable().default(null)]],
      returns: z.object({ removed: z.boolean(), revision: z.number().int().nullable() }),
      doc: 'Removes the binding only if it is still at `revision` (null: whatever is bound). Returns removed=false and the current revision otherwise.',
    }),
    list: method({
      params: [['prefix', z.string().max(1024).default('')]],
      returns: z.array(bindingSchema),
      doc: 'Every binding whose name starts with prefix.',
    }),
  },
});
