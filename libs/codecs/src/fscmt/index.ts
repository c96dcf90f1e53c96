/**
 * FSCMT: the Crawler Multinode Transport (MS-FSCMT). Frames are a big-endian uint32 length and an FSWCU
 * (dict, priority) tuple; typed builders and readers cover every message of sections 2.2.3 to 2.2.5.
 *
 *   import { FscmtFrameParser, encodeFscmtFrame, buildFscmtMultinodeSchedulerMessage } from '@esp/codecs';
 *   socket.write(encodeFscmtFrame(buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 1));
 *   const parser = new FscmtFrameParser((msg) => handle(readFscmtNodeSchedulerMessage(msg.dict), msg.priority));
 *   for await (const chunk of socket) parser.parse(chunk);
 *   parser.end();
 */
export {
  decodeFscmtBody,
  decodeFscmtFrame,
  encodeFscmtFrame,
  FSCMT_DEFAULT_MAX_FRAME_BYTES,
  FSCMT_HEADER_BYTES,
  type FscmtDecodeOptions,
  type FscmtEncodeOptions,
  type FscmtMessage,
  type FscmtPriority,
} from './fscmt-frame';
export { FscmtFrameParser, type FscmtFrameParserOptions } from './fscmt-frame-parser';
export {
  FscmtBadPriorityError,
  FscmtCrawlConfigError,
  FscmtFrameTooLargeError,
  FscmtMalformedFrameError,
  FscmtShapeError,
  FscmtTrailingBytesError,
  FscmtTruncatedFrameError,
  FscmtUnknownCommandError,
} from './fscmt-errors';
export { FSCMT_COMMANDS, fscmtCommandName, fscmtCommandNumber, type FscmtCommandName } from './fscmt-commands';
export { FSCMT_KEYS, fscmtKeyName, type FscmtKey, type FscmtKeyName } from './fscmt-keys';
export {
  FSCMT_FRAME_FLAGS,
  FSCMT_QUEUE_FLAGS,
  FSCMT_REDIRECT_KINDS,
  FSCMT_URI_FLAGS,
  fscmtFlagNames,
  fscmtFlagsFromNames,
} from './fscmt-flags';
export { FSCMT_CONF_STATES, FSCMT_LOG_FILES, FSCMT_MAX_ROUTES_PER_MESSAGE, FSCMT_REFRESH_BITS } from './fscmt-values';
export {
  fscmtBytes,
  fscmtDict,
  fscmtFlag,
  fscmtInt,
  fscmtListOf,
  fscmtNullable,
  fscmtRaw,
  fscmtText,
  fscmtTupleOf,
  type FscmtFieldCodec,
} from './fscmt-fields';
export { fscmtAddrinfo, fscmtAddrinfoResult, type FscmtAddrinfo, type FscmtAddrinfoResult, type FscmtSockaddr } from './fscmt-addrinfo';
export { fscmtParsedUri, fscmtUnparsedUri, fscmtUri, type FscmtUri } from './fscmt-uri';
export { FSCMT_QUEUE_ENTRY_ID, fscmtQueueEntry, type FscmtQueueEntry, type FscmtRedirect } from './fscmt-queue-entry';
export {
  fscmtCrawlIpGrant,
  fscmtCrawlIpRequest,
  fscmtCrawlIpStop,
  fscmtDeleteUris,
  fscmtDnsReply,
  fscmtFeedingSuspend,
  fscmtLogLine,
  fscmtPreemptSite,
  fscmtQuarantineSite,
  fscmtRefresh,
  fscmtReprocessSite,
  fscmtRoute,
  fscmtRoutes,
  fscmtSiteRoute,
  fscmtXmlRpcAddress,
  type FscmtDeleteUris,
  type FscmtDnsReply,
} from './fscmt-message-data';
export {
  buildFscmtDuplicateServerMessage,
  buildFscmtMultinodeSchedulerMessage,
  buildFscmtNodeSchedulerMessage,
  FSCMT_MESSAGE_CATALOGUES,
  readFscmtCommand,
  readFscmtDuplicateServerMessage,
  readFscmtMultinodeSchedulerMessage,
  readFscmtNodeSchedulerMessage,
  type FscmtDuplicateServerMessage,
  type FscmtFieldSpec,
  type FscmtMultinodeSchedulerMessage,
  type FscmtNodeSchedulerMessage,
  type FscmtRole,
} from './fscmt-messages';
export { fscmtCrawlConfigFromXml, type FscmtCrawlConfigOptions } from './crawl-config';
export { FSCMT_LINK_EXTRACTION_KEYS, FSCMT_LINK_EXTRACTION_SECTION, fscmtLinkExtractionKey } from './crawl-config-link-extraction';
