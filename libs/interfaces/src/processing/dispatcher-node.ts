import { z } from 'zod';
import { defineInterface, method } from '../define-interface';
import { sessionGuaranteesSchema } from './entity-schemas';
import { aorOf, nonEmptyString, nonNegativeLong, voidResult, zeroPriority } from './fsidl-types';

/** FSIDL type of the session objects dispatcher_node creates (MS-FSCF section 3.4). */
export const PROCESSING_SESSION_TYPE = 'processing::session';
/** FSIDL type of the content client's callback object passed to create_session (MS-FSDP section 3.4). */
export const OPERATION_CALLBACK_TYPE = 'coreprocessing::operation_callback';

/** A `processing::session` client proxy, as returned by create_session / create / recreate. */
export const processingSessionAorSchema = aorOf(PROCESSING_SESSION_TYPE);
/** A `coreprocessing::operation_callback` client proxy (the content client's callbacks). */
export const operationCallbackAorSchema = aorOf(OPERATION_CALLBACK_TYPE);

/**
 * A session identifier. Only destroy_session says it MUST be >= 0 (MS-FSCDFT 3.5.4.4); the same id is used by every
 * method, so it is non-negative everywhere (a session created with a negative id could never be destroyed).
 */
export const sessionIdSchema = nonNegativeLong;

/** `typedef sequence<long> session_list` (MS-FSCDFT appendix A): session ids. */
export const sessionListSchema = z.array(sessionIdSchema);

/**
 * Ours, not the spec's: the secret that makes a session its client's (docs/decisions/0013-session-ownership.md).
 * The client draws it (crypto random) before its first create_session and sends it, as an optional last argument,
 * with every create_session / create / recreate / destroy_session of that id; a call on an existing session without
 * it, or with another, raises session_not_owned. At least 16 characters (a client sends 43: 32 random bytes in
 * base64url); the distributors keep only its SHA-256.
 */
export const sessionOwnerTokenSchema = z
  .string()
  .min(16, 'owner_token: at least 16 characters')
  .max(256)
  .nullish()
  // a client in another language may send nil for "none"
  .transform((v) => v ?? undefined);

const sessionRaises = ['unsupported_guarantee_set', 'unknown_collection', 'session_not_owned'] as const;

/**
 * `processing::dispatcher_node` 5.1: served by every content distributor (master and backups) under
 * dispatcherNodeName(node_id) (MS-FSCDFT 3.5.3); the master calls it to spread sessions over the distributors.
 *
 * Raises: `processing::unknown_collection { string what; }` (MS-FSCDFT 2.2.4; the field is `message` in appendix A)
 * and `core::unsupported_guarantee_set { string what; }` (2.2.5). Their one string field is the message of the
 * UnknownCollection / UnsupportedGuaranteeSet user exception.
 *
 * Ours: create_session, create, recreate and destroy_session take an optional last argument, `owner_token`
 * (sessionOwnerTokenSchema), which a caller of the spec's signature does not send; with it they raise
 * `session_not_owned` (SessionNotOwned). get_sessions and remove_sessions are for the distributors: the bus lets no
 * other role call a dispatcher_node.
 *
 * The method table of 3.5.4 lists `get_session`; the method's own section (3.5.4.6) and appendix A say
 * `get_sessions`, which is used here.
 */
export const dispatcherNodeInterface = defineInterface({
  type: 'processing::dispatcher_node',
  version: '5.1',
  doc: 'Content distributor node: creates, recreates and closes feeding sessions for the master (MS-FSCDFT 3.5).',
  methods: {
    create_session: method({
      params: [
        ['id', sessionIdSchema],
        ['collection', nonEmptyString],
        ['callback', operationCallbackAorSchema],
        ['guarantees', sessionGuaranteesSchema],
        ['priority', zeroPriority],
        ['owner_token', sessionOwnerTokenSchema],
      ],
      returns: processingSessionAorSchema,
      raises: sessionRaises,
      doc:
        'MS-FSCDFT 3.5.4.1: unknown collection raises unknown_collection; else create the session via the indexing ' +
        "dispatcher's session_factory::create, activate it on base port + 390, keep it under id and return its proxy.",
    }),
    create: method({
      params: [
        ['id', sessionIdSchema],
        ['collection', nonEmptyString],
        ['guarantees', sessionGuaranteesSchema],
        ['priority', zeroPriority],
        ['external_client', z.boolean()],
        ['owner_token', sessionOwnerTokenSchema],
      ],
      returns: processingSessionAorSchema,
      raises: sessionRaises,
      doc:
        'MS-FSCDFT 3.5.4.2: as create_session (no callback), activating the session on base port + 391 when ' +
        'external_client is true, + 390 otherwise.',
    }),
    recreate: method({
      params: [
        ['id', sessionIdSchema],
        ['collection', nonEmptyString],
        ['guarantees', sessionGuaranteesSchema],
        ['priority', zeroPriority],
        ['external_client', z.boolean()],
        ['owner_token', sessionOwnerTokenSchema],
      ],
      returns: processingSessionAorSchema,
      raises: sessionRaises,
      doc:
        'MS-FSCDFT 3.5.4.3: return the proxy of the existing session id if held; otherwise create it as `create` does ' +
        "(via the indexing dispatcher's session_factory::recreate).",
    }),
    destroy_session: method({
      params: [
        ['id', sessionIdSchema],
        ['owner_token', sessionOwnerTokenSchema],
      ],
      returns: voidResult,
      raises: ['session_not_owned'],
      doc:
        'MS-FSCDFT 3.5.4.4: remove session id from the session holder and close it at the indexing dispatcher ' +
        '(session_factory::close).',
    }),
    remove_sessions: method({
      params: [['coll', nonEmptyString]],
      returns: sessionListSchema,
      doc: 'MS-FSCDFT 3.5.4.5: delete every session of collection coll; return the ids removed.',
    }),
    get_sessions: method({
      params: [],
      returns: sessionListSchema,
      doc: 'MS-FSCDFT 3.5.4.6: the ids of all sessions in the session holder.',
    }),
    get_load: method({
      params: [],
      returns: nonNegativeLong,
      doc:
        'MS-FSCDFT 3.5.4.7: the load state (updated on every processing::session::process); the master picks the ' +
        'least loaded node.',
    }),
  },
});
