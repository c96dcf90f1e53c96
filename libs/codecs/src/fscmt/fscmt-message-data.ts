/**
 * The PKT_DATA (and PKT_XMLRPCPRT) structures of individual messages, MS-FSCMT 2.2.3 to 2.2.5, as field codecs.
 * Each is a tuple on the wire and an object here; the object's key order is the tuple's item order.
 */
import { FswcuDict, FswcuTuple, type FswcuValue } from '../fswcu/fswcu-value';
import { fscmtAddrinfoResult, type FscmtAddrinfoResult } from './fscmt-addrinfo';
import { FscmtShapeError } from './fscmt-errors';
import {
  fscmtFlag,
  fscmtInt,
  fscmtListOf,
  fscmtNullable,
  fscmtShapeError,
  fscmtText,
  fscmtTupleItems,
  fscmtTupleOf,
  type FscmtFieldCodec,
} from './fscmt-fields';
import { FSCMT_MAX_ROUTES_PER_MESSAGE } from './fscmt-values';

const texts = fscmtListOf(fscmtText);

/** CMD_UM_INIT's PKT_XMLRPCPRT: where the node scheduler's administrative interface listens. */
export const fscmtXmlRpcAddress = fscmtTupleOf({ host: fscmtText, port: fscmtInt });

/** CMD_ADM_CONF_FEEDING_SUSPEND: suspend (true) or resume, for all destinations (null) or the named ones. */
export const fscmtFeedingSuspend = fscmtTupleOf({ suspend: fscmtFlag, destinations: fscmtNullable(texts) });

/** CMD_UM_ADD_ROUTE to a node scheduler: route one crawl site to a node. `ttl` is in seconds. */
export const fscmtSiteRoute = fscmtTupleOf({
  nodeId: fscmtText,
  routingAttribute: fscmtText,
  site: fscmtText,
  addrinfo: fscmtAddrinfoResult,
  ttl: fscmtInt,
});

/** One entry of CMD_UM_ADD_ROUTE to the multinode scheduler. */
export const fscmtRoute = fscmtTupleOf({ routingAttribute: fscmtText, nodeId: fscmtText });

/** CMD_UM_ADD_ROUTE to the multinode scheduler: at most 256 routes per message. */
export const fscmtRoutes = fscmtListOf(fscmtRoute, FSCMT_MAX_ROUTES_PER_MESSAGE);

/** CMD_ADM_CONF_REFRESH: the subcollection (null: the whole collection) and FSCMT_REFRESH_BITS. */
export const fscmtRefresh = fscmtTupleOf({ subcollection: fscmtNullable(fscmtText), mask: fscmtInt });

/** CMD_ADM_PREEMPT_SITE: requeue = put the site back at the front of the crawl queue. */
export const fscmtPreemptSite = fscmtTupleOf({ site: fscmtText, requeue: fscmtFlag });

/** CMD_UM_REPROCESS_SITE: destination null = all content submission destinations. */
export const fscmtReprocessSite = fscmtTupleOf({
  site: fscmtText,
  uriPrefix: fscmtText,
  destination: fscmtNullable(fscmtText),
  exactMatch: fscmtFlag,
});

/** CMD_UM_QUARANTINE_SITE and CMD_UM_QUARANTINE_SITE_REQUEUE. */
export const fscmtQuarantineSite = fscmtTupleOf({ site: fscmtText, seconds: fscmtInt });

/** CMD_UM_DNS_REPLY: the host name, then (addrinfo or null, time resolved, time to live in seconds). */
export interface FscmtDnsReply {
  hostname: string;
  addrinfo: FscmtAddrinfoResult;
  resolvedAt: number;
  ttl: number;
}

const dnsResult = fscmtTupleOf({ addrinfo: fscmtAddrinfoResult, resolvedAt: fscmtInt, ttl: fscmtInt });
const dnsReplyTuple = fscmtTupleOf({ hostname: fscmtText, result: dnsResult });

export const fscmtDnsReply: FscmtFieldCodec<FscmtDnsReply> = {
  read(value, path) {
    const { hostname, result } = dnsReplyTuple.read(value, path);
    return { hostname, ...result };
  },
  write: (r) => dnsReplyTuple.write({ hostname: r.hostname, result: { addrinfo: r.addrinfo, resolvedAt: r.resolvedAt, ttl: r.ttl } }),
};

/** CMD_UM_START_CRAWL_IP to a node scheduler (the answer): is crawling this IP / site allowed. */
export const fscmtCrawlIpGrant = fscmtTupleOf({ ip: fscmtText, site: fscmtText, storeId: fscmtInt, allowed: fscmtFlag });

/** CMD_UM_START_CRAWL_IP to the multinode scheduler (the request). */
export const fscmtCrawlIpRequest = fscmtTupleOf({ ip: fscmtText, site: fscmtText, storeId: fscmtInt });

/** CMD_UM_STOP_CRAWL_IP. */
export const fscmtCrawlIpStop = fscmtTupleOf({ ip: fscmtText, site: fscmtText });

/** CMD_UM_LOG: logFile is one of FSCMT_LOG_FILES. */
export const fscmtLogLine = fscmtTupleOf({ logFile: fscmtText, message: fscmtText });

/** CMD_UM_DELETE_URIS: URIs grouped by crawl site, and the fetch log error code (normally "USR"). */
export interface FscmtDeleteUris {
  urisBySite: Map<string, string[]>;
  errcode: string;
}

export const fscmtDeleteUris: FscmtFieldCodec<FscmtDeleteUris> = {
  read(value, path) {
    const [bySite, info] = fscmtTupleItems(value, path, 2);
    if (!(bySite instanceof FswcuDict)) throw fscmtShapeError(`${path}[0]`, 'a dict', bySite);
    if (!(info instanceof FswcuDict)) throw fscmtShapeError(`${path}[1]`, 'a dict', info);
    const urisBySite = new Map<string, string[]>();
    bySite.entries.forEach(([site, uris], i) => {
      urisBySite.set(fscmtText.read(site, `${path}[0].keys[${i}]`), texts.read(uris, `${path}[0][${i}]`));
    });
    const errcode: FswcuValue | undefined = info.getText('errcode');
    if (errcode === undefined) throw new FscmtShapeError(`${path}[1]`, 'missing "errcode"');
    return { urisBySite, errcode: fscmtText.read(errcode, `${path}[1].errcode`) };
  },
  write(d) {
    const bySite = new FswcuDict(
      [...d.urisBySite].map(([site, uris]): [FswcuValue, FswcuValue] => [fscmtText.write(site), texts.write(uris)]),
    );
    return new FswcuTuple([bySite, new FswcuDict().setText('errcode', fscmtText.write(d.errcode))]);
  },
};
