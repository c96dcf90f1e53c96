/**
 * Enumerated values carried inside individual messages' PKT_DATA.
 *
 *   buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_CONF_STATE', dspecName: 'web', state: FSCMT_CONF_STATES.ACTIVE });
 */

/** Crawl collection states (CMD_UM_CONF_STATE to a node scheduler, 2.2.3.21; CMD_ADM_CONF_SUSPEND uses 4, 5, 8). */
export const FSCMT_CONF_STATES = {
  ACTIVE: 1,
  BLOCKED: 2,
  REMOVING: 3,
  SUSPENDED_BY_USER: 4,
  SUSPENDED_DISK_FULL: 5,
  NIGHTLY_COMPACTION: 6,
  COMPACTING: 7,
  SUSPENDED_VARIABLE_DELAY: 8,
} as const;

/** Bits of the CMD_ADM_CONF_REFRESH mask (2.2.3.10). The spec writes the last one as "0x16"; it is bit 0x10. */
export const FSCMT_REFRESH_BITS = {
  RELOAD_CONFIGURATION: 0x1,
  REFRESH_COLLECTION: 0x2,
  REFRESH_SUBCOLLECTION: 0x4,
  REQUEUE_START_URIS: 0x8,
  TRUNCATE_AND_RESTART: 0x10,
} as const;

/** Log files of CMD_UM_LOG (2.2.4.8). */
export const FSCMT_LOG_FILES = {
  CF_SITELOGFILE: 'si',
  CF_SCREENEDLOGFILE: 'ur',
  CF_SCHEDULELOGFILE: 'sc',
  CF_LOGFILE: 'dk',
} as const;

/** The most routes one CMD_UM_ADD_ROUTE to the multinode scheduler may carry (2.2.4.9). */
export const FSCMT_MAX_ROUTES_PER_MESSAGE = 256;
