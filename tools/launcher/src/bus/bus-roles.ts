/**
 * Who may publish and subscribe what on the stack's NATS: one identity per role, each allowed what its job needs
 * and nothing more (docs/security.md has the same table in words). Pure data, built from the subject builders of
 * the libs that own the subjects, so a layout change there changes the permissions with it.
 *
 *   const p = busPermissions('content-distributor');   // { publish: [...], subscribe: [...], ... }
 *
 * What the subjects allow to express, and so what holds:
 * - an object's subject starts with its interface type (esp.obj.<type>.>): a role serves and calls kinds of objects;
 * - a name's writes go to esp.ns.w.<name path>: a role writes the names under its own prefix only;
 * - replies come to _INBOX.<user>.>: an identity reads its own replies only;
 * - only the name server touches the esp_names bucket; the object store's chunks are read by the roles that
 *   process documents, and a feed client may only add objects (and ask the indexer to delete its own);
 * - no role but admin may create, update or delete a stream: the stack creates them at start-up.
 */
import { CONTENT_RELEASE_SUBJECT } from '@esp/claim-check';
import { DEFAULT_CONTENT_BUCKET, processorServerIdPrefix, OPERATION_CALLBACK_TYPE, CORE_PROCESSING_SESSION_TYPE, CORE_SESSION_FACTORY_TYPE, PROCESSING_SESSION_TYPE, SEARCH_TYPE } from '@esp/interfaces';
import { NAME_BUCKET, NAME_WRITE_SUBJECTS, inboxPrefix, nameServerSubject, nameWriteSubject, objectsOfType, objectsWithIdPrefix, RawBus } from '@esp/middleware';

/** The roles that connect to NATS. The node controller does not: it passes its children their own identities. */
export const BUS_ROLES = [
  'name-server',
  'config-server',
  'indexer',
  'content-distributor',
  'item-processor',
  'ssr-node',
  'multinode-scheduler',
  'node-scheduler',
  'duplicate-server',
  'fscmt-gateway',
  'ppp-gateway',
  'client',
  'admin',
] as const;
export type BusRole = (typeof BUS_ROLES)[number];

export interface BusPermissions {
  publish: string[];
  publishDeny: string[];
  subscribe: string[];
  /** May answer requests: publish once to the reply subject of a message it received (allow_responses). */
  responses: boolean;
}

const T = {
  sessionFactory: 'processing::session_factory',
  masterDispatcher: 'processing::master_dispatcher',
  dispatcherNode: 'processing::dispatcher_node',
  procserverHandler: 'processing::procserver_handler',
  processorServer: 'processing::processor_server',
  session: PROCESSING_SESSION_TYPE,
  coreFactory: CORE_SESSION_FACTORY_TYPE,
  coreSession: CORE_PROCESSING_SESSION_TYPE,
  callback: OPERATION_CALLBACK_TYPE,
  search: SEARCH_TYPE,
  config: 'configservice::config',
} as const;

const objects = (...types: string[]): string[] => types.map(objectsOfType);
/** Every name under `prefix` (a name path): its write subjects. */
const names = (prefix: string): string => `${nameWriteSubject(prefix)}.>`;

/** The JetStream API of one stream, as far as reading it goes (info, consumers, message gets). */
function streamGets(stream: string): string[] {
  return ['$JS.API.INFO', `$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.MSG.GET.${stream}`, `$JS.API.DIRECT.GET.${stream}`, `$JS.API.DIRECT.GET.${stream}.>`];
}

/**
 * Consumers of one stream: the name server's KV watch only. A push consumer delivers to a subject its creator
 * chooses, which JetStream does not check against the creator's publish permissions: whoever may create one can
 * send any stored message to any subject. So the content roles read by direct gets (blob-store.ts) and get none.
 */
function streamReads(stream: string): string[] {
  return [
    ...streamGets(stream),
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.>`,
    `$JS.API.CONSUMER.DELETE.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/** The name server's bucket: its stream's whole API and its subjects. Nobody else gets any of it. */
function nameStore(): string[] {
  const stream = `KV_${NAME_BUCKET}`;
  return [...streamReads(stream), `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`, `$JS.API.STREAM.PURGE.${stream}`, `$JS.API.STREAM.MSG.DELETE.${stream}`, `$KV.${NAME_BUCKET}.>`];
}

/**
 * Opening the content bucket: the stack created it at start-up (jetstream-setup.ts); an opener checks its
 * configuration (STREAM.INFO) and may not create, update or delete it.
 */
function contentOpen(bucket: string): string[] {
  return ['$JS.API.INFO', `$JS.API.STREAM.INFO.OBJ_${bucket}`];
}

/**
 * Adding objects only: a chunk subject is named by a fresh nuid, nothing here reads a chunk back. The stream takes
 * no rollup headers, so a description published here cannot wipe others; deleting is asked of the stack.
 */
function contentAdd(bucket: string): string[] {
  return [...contentOpen(bucket), `$O.${bucket}.C.>`, `$O.${bucket}.M.>`, CONTENT_RELEASE_SUBJECT];
}

/** Reading objects (the processing roles: they fetch what a client checked in). */
function contentRead(bucket: string): string[] {
  return [...contentOpen(bucket), ...streamGets(`OBJ_${bucket}`)];
}

/** Reading, adding, replacing and deleting objects (a delete purges the object's subjects). */
function contentWrite(bucket: string): string[] {
  return [...contentRead(bucket), ...contentAdd(bucket).filter((s) => s !== CONTENT_RELEASE_SUBJECT), `$JS.API.STREAM.PURGE.OBJ_${bucket}`];
}

/** The processor_server objects of the item processor named `name` (and nobody else's). */
function ownProcessorObjects(name: string): string {
  return objectsWithIdPrefix(T.processorServer, processorServerIdPrefix(name));
}

/** A crawl-cluster role: its own addresses (and their control and admin subjects), and sending to any peer. */
function crawlPeer(role: 'mns' | 'ns' | 'dup' | 'tcp'): { publish: string[]; subscribe: string[] } {
  const fscmt = RawBus.subject('fscmt');
  return { publish: [`${fscmt}.>`], subscribe: [`${fscmt}.*.${role}.>`] };
}

/**
 * The id prefix of the callback objects a feed user activates: `feed-callback/<user>`, each segment a subject token,
 * so a permission can give a user its own callback objects only (the shared `client` user keeps every callback).
 */
export function feedCallbackIdPrefix(user: string): string {
  return `feed-callback/${user}`;
}

/** Only an operator calls a crawl cluster's administration. */
const CRAWL_ADMIN = `${RawBus.subject('fscmt')}.*.mns.*.admin`;
const LIVENESS = `${RawBus.subject('ppp', 'procserver-liveness')}.>`;

/** What a feed or search client does: open sessions, feed, search, hear its callbacks, check in large content. */
function clientRole(bucket: string): { publish: string[]; subscribe: string[] } {
  return {
    publish: [...objects(T.sessionFactory, T.session, T.search), ...contentAdd(bucket)],
    subscribe: objects(T.callback),
  };
}

export interface BusPermissionOptions {
  /** The object store bucket of out-of-band content (default esp_content). */
  contentBucket?: string;
  /**
   * The user the role connects as (default: the role's name); its replies come to _INBOX.<user>. An item
   * processor's user is its name (item-processor-1): it serves that processor's objects only.
   */
  user?: string;
}

/** The permissions of one role, each subject once. */
export function busPermissions(role: BusRole, opts: BusPermissionOptions = {}): BusPermissions {
  const p = rolePermissions(role, opts);
  return { ...p, publish: [...new Set(p.publish)], publishDeny: [...new Set(p.publishDeny)], subscribe: [...new Set(p.subscribe)] };
}

function rolePermissions(role: BusRole, opts: BusPermissionOptions): BusPermissions {
  const bucket = opts.contentBucket ?? DEFAULT_CONTENT_BUCKET;
  const inbox = `${inboxPrefix(opts.user ?? role)}.>`;
  const own = (publish: string[], subscribe: string[], publishDeny: string[] = []): BusPermissions => ({
    publish: [nameServerSubject(), ...publish],
    publishDeny: [CRAWL_ADMIN, ...publishDeny],
    subscribe: [inbox, ...subscribe],
    responses: true,
  });
  switch (role) {
    case 'admin':
      return { publish: ['>'], publishDeny: [], subscribe: ['>'], responses: true };
    case 'name-server':
      // esp.ns.rpc as every role has it: its health check asks it as a client does
      return { publish: [nameServerSubject(), ...nameStore()], publishDeny: [], subscribe: [inbox, nameServerSubject(), NAME_WRITE_SUBJECTS], responses: true };
    case 'config-server':
      return own([names('fds'), ...objects(T.config)], objects(T.config));
    case 'indexer':
      return own(
        [names('esp/subsystems/indexing'), ...objects(T.coreFactory, T.search, T.callback, T.config), ...contentWrite(bucket)],
        [...objects(T.coreFactory, T.coreSession, T.search), CONTENT_RELEASE_SUBJECT],
      );
    case 'content-distributor': {
      const ssr = `${RawBus.subject('ssr')}.>`;
      return own(
        [
          names('esp/subsystems/processing'),
          // procserverHandler: its own, bound under its node name, which its health check pings
          ...objects(T.sessionFactory, T.masterDispatcher, T.dispatcherNode, T.procserverHandler, T.processorServer, T.coreFactory, T.coreSession, T.callback, T.config),
          ssr,
        ],
        [...objects(T.sessionFactory, T.masterDispatcher, T.dispatcherNode, T.procserverHandler, T.session, T.callback), LIVENESS, ssr],
      );
    }
    case 'item-processor':
      // a processor serves its own processor_server objects only (their ids carry its name, its user): it hears no
      // batch addressed to another processor. Its writes into indexing sessions carry the distributor's batch token.
      return own([...objects(T.masterDispatcher, T.procserverHandler, T.coreSession), LIVENESS, ...contentWrite(bucket)], [ownProcessorObjects(opts.user ?? role)]);
    case 'ssr-node': {
      const ssr = `${RawBus.subject('ssr')}.>`;
      return own([ssr], [ssr]);
    }
    case 'multinode-scheduler': {
      const c = crawlPeer('mns');
      return own([...c.publish, ...objects(T.config)], c.subscribe);
    }
    case 'node-scheduler': {
      const c = crawlPeer('ns');
      const feed = clientRole(bucket);
      return own([...c.publish, ...feed.publish], [...c.subscribe, ...feed.subscribe]);
    }
    case 'duplicate-server':
    case 'fscmt-gateway': {
      const c = crawlPeer(role === 'duplicate-server' ? 'dup' : 'tcp');
      return own(c.publish, c.subscribe);
    }
    case 'ppp-gateway': {
      const ppp = `${RawBus.subject('ppp')}.>`;
      return own([ppp], [ppp], [LIVENESS]);
    }
    case 'client': {
      const feed = clientRole(bucket);
      // a per-client user (not the shared `client`) hears its own callback objects only
      const user = opts.user ?? role;
      return own(feed.publish, user === role ? feed.subscribe : [objectsWithIdPrefix(T.callback, feedCallbackIdPrefix(user))]);
    }
  }
}
