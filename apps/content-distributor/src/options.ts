import type { Logger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import type { Clock } from '@esp/timers';
import type { CollectionHolder } from './collection-holder';
import type { QuotaLimits } from './sessions/client-quota';
import type { SessionReplicationOptions } from './sessions/session-replication';

export type { SessionReplicationOptions };

export interface ContentDistributorOptions {
  mw: Middleware;
  log: Logger;
  /** This distributor's node id: its dispatcher_node and procserver_handler live at .../dispatcher/<nodeId>. */
  nodeId: number;
  basePort: number;
  /** The collections create_session accepts, when there is no collectionHolder. */
  collections: string[];
  /** The collection holder (ConfigServiceCollections: the config server's); default: the fixed `collections`. */
  collectionHolder?: CollectionHolder;
  /** Lease Timeout (MS-FSDPD 3.5.2), default 300 s. */
  leaseMs?: number;
  clock?: Clock;
  /** Heartbeat interval of the item processors, PPP (default 1000 ms). */
  heartbeatMs?: number;
  /** Silent heartbeat intervals before an item processor is declared dead (default 3). */
  liveness?: number;
  /** Declare a processor whose process is gone (no responders) dead at once (default true). */
  goneProbe?: boolean;
  /**
   * Called on a Lease Timeout, after the lost operations went to the indexer, and when PPP liveness declares a
   * processor dead: the node-controller restart hook.
   */
  onLeaseExpired?: (p: { name: string; pid: number; host: string }) => void | Promise<void>;
  /** Check-for-master timer of a backup: __ping of the master every interval (MS-FSCDFT 3.4.2, default 5000 ms). */
  pingIntervalMs?: number;
  /** Check-master-status timer of the master (MS-FSCDFT 3.3.2, default 5000 ms). */
  checkMasterMs?: number;
  /** Deadline of one __ping of the master (default: the ping interval, at least 250 ms). */
  pingTimeoutMs?: number;
  /**
   * Feeding sessions in session replication (docs/architecture/session-replication.md): every distributor runs an SSR
   * instance in ack mode and acknowledges a batch only once the session artifact holding it is on the buddy.
   * Undefined: off (a session lives and dies with its distributor; the client resends what has no final status).
   */
  sessionReplication?: SessionReplicationOptions;
  /** Per-client and global limits (sessions, bytes in flight); default DEFAULT_QUOTA_LIMITS (sessions/session-quota.ts). */
  quota?: QuotaLimits;
  /** A session with no call and no callback taken by its client for this long is destroyed (ms; default 600 000; 0: never). */
  sessionIdleMs?: number;
}
