import type { Artifact } from '../artifact';
import type { IdVersion } from '../messages';
import { memberKey, type Member, type View } from '../membership';

/** Entries per expat message: lists of a large cache travel in several messages. */
export const EXPAT_CHUNK = 5000;
/** Views whose lists are kept for a view this instance has not reached yet; older ones are forgotten. */
const INBOX_VIEWS = 8;

/**
 * The expat list of this home (2.13 "find vs create"), as a state machine without the network. After each reshape
 * every instance sends each home the ids and versions it holds for that home; once every member's list of the
 * current view is in, the list is complete and a create of an id neither active here nor in it needs no broadcast.
 *
 * - added: an entry of a list received in the current view (the highest version wins), and an artifact of this
 *   home whose copy here was taken by another instance (`takenElsewhere`);
 * - removed: when the artifact becomes active here (put, reactivation) and when a load finds it nowhere (`forget`);
 * - reset: at every reshape, then filled again from the lists already received for the new view.
 */
export class ExpatList {
  private entries = new Map<string, number>();
  private from = new Set<string>();
  private readonly inbox = new Map<string, { from: string; items: IdVersion[] }[]>();

  version(id: string): number | undefined {
    return this.entries.get(id);
  }

  /** Every other member of `view` has sent its list for it. */
  complete(view: View, selfName: string): boolean {
    return view.members.every((m) => m.name === selfName || this.from.has(memberKey(m)));
  }

  /** A list from member `from` made in `viewId`; taken now if that is the current view, else kept for it. */
  received(from: string, viewId: string, items: IdVersion[], currentViewId: string): void {
    let inbox = this.inbox.get(viewId);
    if (!inbox) {
      this.inbox.set(viewId, (inbox = []));
      if (this.inbox.size > INBOX_VIEWS) this.inbox.delete(this.inbox.keys().next().value as string);
    }
    inbox.push({ from, items });
    if (viewId === currentViewId) this.take(from, items);
  }

  /** A reshape: the lists of the old view say nothing of the new one. */
  newView(viewId: string): void {
    this.entries = new Map();
    this.from = new Set();
    for (const { from, items } of this.inbox.get(viewId) ?? []) this.take(from, items);
  }

  /** This home's copy of `id` at `version` was taken elsewhere (see planCommit). */
  takenElsewhere(id: string, version: number): void {
    if ((this.entries.get(id) ?? -1) < version) this.entries.set(id, version);
  }

  /** The artifact is active here now, or exists nowhere. */
  forget(id: string): void {
    this.entries.delete(id);
  }

  private take(from: string, items: IdVersion[]): void {
    this.from.add(from);
    // kept even for ids active here: a suspect copy reloaded from disk may be dropped by the repair later, and then
    // only the expat entry says the artifact lives elsewhere
    for (const [id, v] of items) if ((this.entries.get(id) ?? -1) < v) this.entries.set(id, v);
  }
}

/**
 * The lists this instance sends after a reshape: to each other member, the confirmed copies (active or replica)
 * whose home it is; at least one message per member (an empty list completes the home's set too).
 */
export function expatListsFor(
  view: View,
  selfName: string,
  copies: Iterable<{ a: Artifact; suspect: boolean }>,
  homeOf: (homeHash: number) => string | undefined,
): { to: Member; items: IdVersion[] }[] {
  const lists = new Map<string, IdVersion[]>();
  for (const e of copies) {
    if (e.suspect) continue;
    const home = homeOf(e.a.homeHash);
    if (!home || home === selfName) continue;
    let l = lists.get(home);
    if (!l) lists.set(home, (l = []));
    l.push([e.a.id, e.a.version]);
  }
  const out: { to: Member; items: IdVersion[] }[] = [];
  for (const m of view.members) {
    if (m.name === selfName) continue;
    const items = lists.get(m.name) ?? [];
    for (let i = 0; i === 0 || i < items.length; i += EXPAT_CHUNK) out.push({ to: m, items: items.slice(i, i + EXPAT_CHUNK) });
  }
  return out;
}
