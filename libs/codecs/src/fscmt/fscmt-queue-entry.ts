/**
 * The crawl queue entry (MS-FSCMT 2.2.2.2): the 9-tuple ("WQE", uri, referrer, uri flags, frame flags,
 * redirect trail, queue flags, crawl refresh cycle, extra) that carries a URI between schedulers.
 *
 *   fscmtQueueEntry.write({
 *     uri: fscmtParsedUri('http://www.contoso.com/'), referrer: fscmtUnparsedUri(''),
 *     uriFlags: FSCMT_URI_FLAGS.URIF_STARTURI, frameFlags: 0, redirects: [], queueFlags: 0, refreshCycle: 0,
 *     extra: new FswcuDict(),
 *   });
 */
import { FswcuDict, FswcuTuple } from '../fswcu/fswcu-value';
import { FscmtShapeError } from './fscmt-errors';
import { fscmtDict, fscmtInt, fscmtItemLabels, fscmtText, fscmtTupleItems, type FscmtFieldCodec } from './fscmt-fields';
import { fscmtUri, type FscmtUri } from './fscmt-uri';

export const FSCMT_QUEUE_ENTRY_ID = 'WQE';

export interface FscmtRedirect {
  /** The URI that redirected to this one. */
  uri: string;
  /** One of FSCMT_REDIRECT_KINDS. */
  kind: number;
}

export interface FscmtQueueEntry {
  uri: FscmtUri;
  /** Built on the empty URI '' when the URI was not found in a document. */
  referrer: FscmtUri;
  /** FSCMT_URI_FLAGS bits. */
  uriFlags: number;
  /** 0 or one of FSCMT_FRAME_FLAGS. */
  frameFlags: number;
  redirects: FscmtRedirect[];
  /** FSCMT_QUEUE_FLAGS bits. */
  queueFlags: number;
  refreshCycle: number;
  /** String metadata, typically from RSS channels or site maps; kept as decoded. */
  extra: FswcuDict;
}

const redirect: FscmtFieldCodec<FscmtRedirect> = {
  read(value, path) {
    const [uri, kind] = fscmtTupleItems(value, path, 2);
    const at = fscmtItemLabels(path);
    return { uri: fscmtText.read(uri, at(0)), kind: fscmtInt.read(kind, at(1)) };
  },
  write: (r) => new FswcuTuple([fscmtText.write(r.uri), fscmtInt.write(r.kind)]),
};

export const fscmtQueueEntry: FscmtFieldCodec<FscmtQueueEntry> = {
  read(value, path) {
    const t = fscmtTupleItems(value, path, 9);
    const at = fscmtItemLabels(path);
    const id = fscmtText.read(t[0], at(0));
    if (id !== FSCMT_QUEUE_ENTRY_ID) throw new FscmtShapeError(at(0), `expected "WQE", got ${JSON.stringify(id)}`);
    const trail = t[5];
    const redirects = Array.isArray(trail) ? trail : trail instanceof FswcuTuple ? trail.items : undefined;
    if (redirects === undefined) throw new FscmtShapeError(at(5), 'expected a list of redirects');
    const trailAt = redirects.length === 0 ? undefined : fscmtItemLabels(at(5));
    return {
      uri: fscmtUri.read(t[1], at(1)),
      referrer: fscmtUri.read(t[2], at(2)),
      uriFlags: fscmtInt.read(t[3], at(3)),
      frameFlags: fscmtInt.read(t[4], at(4)),
      redirects: trailAt === undefined ? [] : redirects.map((r, i) => redirect.read(r, trailAt(i))),
      queueFlags: fscmtInt.read(t[6], at(6)),
      refreshCycle: fscmtInt.read(t[7], at(7)),
      extra: fscmtDict.read(t[8], at(8)),
    };
  },
  write: (e) =>
    new FswcuTuple([
      fscmtText.write(FSCMT_QUEUE_ENTRY_ID),
      fscmtUri.write(e.uri),
      fscmtUri.write(e.referrer),
      fscmtInt.write(e.uriFlags),
      fscmtInt.write(e.frameFlags),
      e.redirects.map((r) => redirect.write(r)),
      fscmtInt.write(e.queueFlags),
      fscmtInt.write(e.refreshCycle),
      e.extra,
    ]),
};
