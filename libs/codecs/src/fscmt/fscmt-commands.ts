/**
 * PKT_CMD values (MS-FSCMT 2.2.3, 2.2.4, 2.2.5). Numbers are unique across the three roles; what a command's
 * PKT_DATA holds can still depend on who receives it (see fscmt-messages.ts).
 *
 *   FSCMT_COMMANDS.CMD_UM_INIT   // 24
 *   fscmtCommandName(24)         // 'CMD_UM_INIT'
 */
export const FSCMT_COMMANDS = {
  CMD_ADM_CONF_UPDATE: 0,
  CMD_ADM_CONF_ADD: 1,
  CMD_ADM_CONF_REMOVE: 2,
  CMD_ADM_CONF_SUSPEND: 3,
  CMD_ADM_CONF_RESUME: 4,
  CMD_ADM_CONF_REFRESH: 5,
  CMD_ADM_PREEMPT_SITE: 6,
  CMD_UM_ADD_ROUTE: 7,
  CMD_UM_ASK_ROUTE: 8,
  CMD_UM_LAST_ROUTE: 9,
  CMD_UM_KEEPALIVE: 10,
  CMD_UM_KEEPALIVE_ACK: 11,
  CMD_UM_DNS_REQUEST: 12,
  CMD_UM_DNS_REPLY: 13,
  CMD_UM_REPROCESS_SITE: 14,
  CMD_UM_QUARANTINE_SITE: 15,
  CMD_UM_START_CRAWL_IP: 16,
  CMD_UM_STOP_CRAWL_IP: 17,
  CMD_UM_DELETE_SITE: 18,
  CMD_UM_DELETE_URIS: 19,
  CMD_UM_CONF_STATE: 20,
  CMD_UM_QUARANTINE_SITE_REQUEUE: 21,
  CMD_UM_DELETE_OK: 22,
  CMD_ADM_CONF_FEEDING_SUSPEND: 23,
  CMD_UM_INIT: 24,
  CMD_UM_URI: 25,
  CMD_UM_URI_URG: 26,
  CMD_UM_STAT: 27,
  CMD_UM_LOG: 28,
  PPDUP_ADD_OK: 50,
  PPDUP_ERROR: 51,
  PPDUP_ADD: 52,
  PPDUP_REMOVE: 53,
  PPDUP_REMOVE_OK: 54,
  PPDUP_KEEPALIVE: 55,
  PPDUP_KEEPALIVE_ACK: 56,
  PPDUP_PROMOTE_REQ: 57,
  PPDUP_CONF_REMOVE: 58,
  PPDUP_SET_CONFIG: 59,
  PPDUP_CONFIG_ACK: 60,
  PPDUP_CONF_REMOVE2: 61,
} as const;

export type FscmtCommandName = keyof typeof FSCMT_COMMANDS;

const NAMES = new Map<number, FscmtCommandName>(
  (Object.entries(FSCMT_COMMANDS) as Array<[FscmtCommandName, number]>).map(([name, n]) => [n, name]),
);

export function fscmtCommandName(command: number): FscmtCommandName | undefined {
  return NAMES.get(command);
}

export function fscmtCommandNumber(name: string): number | undefined {
  return Object.hasOwn(FSCMT_COMMANDS, name) ? FSCMT_COMMANDS[name as FscmtCommandName] : undefined;
}
