/**
 * Attacks by a holder of one item processor's credentials (a leaked password of item-processor-1), against real
 * processes on a nats-server with the generated least-privilege configuration and two item processors under a node
 * controller: the attacker reads no batch addressed to the other processor, and writes nothing into an indexing
 * session that the distributor did not dispatch to it. After each attack a feed of 200 documents completes and is
 * searchable.
 */
import { DocumentEntity, DocumentId, OperationSet, StringAttribute, UpdateOperation } from '@esp/codecs';
import { FeedingClient } from '@esp/content-client';
import {
  coreSessionFactoryInterface,
  coreSessionInterface,
  dispatcherNodeName,
  INDEX_SEARCH_NAME,
  INDEXING_DISPATCHER_NAME,
  processorServerInterface,
  processorServerObjectId,
  procserverHandlerInterface,
  searchInterface,
  type Aor,
} from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import { unpackValue, type Middleware } from '@esp/middleware';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttackRig, COLLECTION } from './attack-rig';
import { permissionDenied, trySubscribe } from './bus-probes';

const RECOVERY_MS = 10_000;
const log = createLogger('attacker', {}, { level: 'warn' });
const ALL_PROCESSOR_OBJECTS = 'esp.obj.processing::processor_server.>';

/** How often `marker` occurs in a message's bytes. */
function occurrences(data: Uint8Array, marker: string): number {
  const text = Buffer.from(data).toString('latin1');
  let n = 0;
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) n++;
  return n;
}

describe('attacks with a leaked item-processor password fail, and feeding goes on', () => {
  let rig: AttackRig;
  let attacker: Middleware;
  const recovery: Record<string, number> = {};
  const feedsAfter = async (attack: string): Promise<void> => {
    const { ms } = await rig.feedBatch(attack);
    recovery[attack] = ms;
    expect(ms, `${attack}: 200 documents searchable after ${ms} ms`).toBeLessThanOrEqual(RECOVERY_MS);
  };

  beforeAll(async () => {
    rig = await AttackRig.start({ processors: 2 });
    attacker = await rig.bus.connectProcessor('item-processor-1');
    await rig.feedBatch('baseline');
  }, 180_000);
  afterAll(async () => {
    console.log(`recovery after each attack (ms): ${JSON.stringify(recovery)}`);
    await rig?.stop();
  });

  it("reading the batches of the other processor: subscribing to every processor_server object is refused, and the attacker hears none of item-processor-2's documents", async () => {
    const marker = 'markprocsniffx';
    let heardOther = 0;
    let messagesOther = 0;
    let refused: Error | undefined;
    const sub = attacker.nc.subscribe(ALL_PROCESSOR_OBJECTS, {
      callback: (err, msg) => {
        if (err) refused = err;
        else if (/item-processor-2/.test(msg.subject)) {
          messagesOther++;
          heardOther += occurrences(msg.data, marker);
        }
      },
    });
    await attacker.nc.flush();
    const { ms } = await rig.feedBatch('proc-sniff');
    recovery['proc-sniff'] = ms;
    expect({ messagesOther, heardOther }, `documents of item-processor-2 heard by item-processor-1's identity`).toEqual({ messagesOther: 0, heardOther: 0 });
    expect(sub.isClosed()).toBe(true);
    expect(String(refused)).toMatch(permissionDenied);
    // the other processor's subjects, named, are refused as well; its own are its
    expect(await trySubscribe(attacker, 'esp.obj.processing::processor_server.*.*.processor_server.item-processor-2.>')).toBe('denied');
    expect(await trySubscribe(attacker, 'esp.obj.processing::processor_server.*.*.processor_server.>')).toBe('denied');
    expect(await trySubscribe(attacker, 'esp.obj.processing::processor_server.*.*.processor_server.item-processor-1.>')).toBe('allowed');
    await feedsAfter('after-proc-sniff');
  }, 60_000);

  it("rewriting another client's document through an indexing session: the session's object id is not predictable, and a write without the distributor's token for that batch is refused", async () => {
    // the victim: a document of another client, searchable
    const victimText = 'victimoriginalx';
    const attackerText = 'attackerownedx';
    const victim = await FeedingClient.open({ mw: rig.client, collection: COLLECTION, log });
    const victimDoc = 'victim-doc-1';
    await victim.feed({ id: victimDoc, attributes: { title: 'victim', body: `${victimText} the victim's words`, content_type: 'text/plain' } });
    expect((await victim.drain(30_000)).unfinished).toEqual([]);
    rig.countFed(1);
    const { proxy: search } = await rig.client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect((await search.search(COLLECTION, victimText, 1, 0)).total).toBe(1);
    const forged = (id: number) =>
      new OperationSet({
        completed_op_id: 0,
        operations: [new UpdateOperation({ id, doc: new DocumentEntity({ doc_id: new DocumentId({ id: victimDoc }), document_attributes: [new StringAttribute({ key: 'title', value: attackerText }), new StringAttribute({ key: 'body', value: `${attackerText} written by the attacker` })] }) })],
      });
    const rejected: string[] = [];
    const attempt = async (what: string, aor: Aor, ...extra: unknown[]): Promise<void> => {
      const core = attacker.proxy(coreSessionInterface, aor, { timeoutMs: 3_000 }) as unknown as { process(...a: unknown[]): Promise<void> };
      try {
        await core.process(forged(2_000_000_000 + rejected.length), ...extra);
        rejected.push(`${what}: APPLIED`);
      } catch (err) {
        rejected.push(`${what}: ${(err as Error).name}`);
      }
    };

    // 1. the predictable object id of the victim's indexing session (its session id, e.g. heard in a batch)
    const factory = await attacker.names.resolve(INDEXING_DISPATCHER_NAME, coreSessionFactoryInterface.type, coreSessionFactoryInterface.version);
    const predictable: Aor = { ...factory.aor, object_id: `indexing-session-${victim.sessionId}`, interface_type: coreSessionInterface.type, interface_version: coreSessionInterface.version, name: '' };
    await attempt('predictable object id', predictable);
    expect(rejected, 'a write on the predictable address').not.toContain('predictable object id: APPLIED');
    expect((await search.search(COLLECTION, attackerText, 1, 0)).total, 'the attacker\'s text searchable').toBe(0);

    // 2. the real address and the token of a batch dispatched to item-processor-1, heard on its own subject, used
    // for a document not in that batch
    const heard: { next: Aor; args: unknown[] }[] = [];
    const own = attacker.nc.subscribe('esp.obj.processing::processor_server.*.*.processor_server.item-processor-1.>', {
      callback: (err, msg) => {
        if (err) return;
        const envelope = unpackValue(msg.data) as unknown[];
        const args = envelope.find((x) => Array.isArray(x) && x.length >= 4 && typeof x[0] === 'object') as unknown[] | undefined;
        if (args) heard.push({ next: args[0] as Aor, args });
      },
    });
    await attacker.nc.flush();
    // a session that stays open while the attacker uses what it heard of it
    const bystander = await FeedingClient.open({ mw: rig.client, collection: COLLECTION, log });
    // batches of 100 until one went to item-processor-1 (the dispatch rule may pick the other one first)
    let fedBystander = 0;
    while (heard.length === 0 && fedBystander < 1_000) {
      for (let i = 0; i < 100; i++, fedBystander++) await bystander.feed({ id: `bystander-${fedBystander}`, attributes: { title: `bystander ${fedBystander}`, body: `words of bystander ${fedBystander}`, content_type: 'text/plain' } });
      expect((await bystander.drain(30_000)).unfinished).toEqual([]);
    }
    rig.countFed(fedBystander);
    own.unsubscribe();
    expect(heard.length, 'batches of item-processor-1 heard on its own subject').toBeGreaterThan(0);
    const real = heard[0] as { next: Aor; args: unknown[] };
    await attempt('real address, no token', real.next);
    const token = real.args[5];
    expect(typeof token, 'the batch token handed to item-processor-1').toBe('string');
    await attempt('real address, the token of a batch it was given, for a document not in it', real.next, token);
    await attempt('real address, a made-up token', real.next, 'A'.repeat(43));

    await bystander.close();
    await victim.close();
    expect(rejected).toEqual([
      'predictable object id: ObjectNotExist',
      'real address, no token: BatchNotAuthorized',
      'real address, the token of a batch it was given, for a document not in it: BatchNotAuthorized',
      'real address, a made-up token: BatchNotAuthorized',
    ]);
    expect((await search.search(COLLECTION, attackerText, 1, 0)).total).toBe(0);
    expect((await search.search(COLLECTION, victimText, 1, 0)).total).toBe(1);
    // the real indexing sessions' object ids end in an unpredictable suffix
    expect(real.next.object_id).toMatch(/^indexing-session-\d+-[0-9a-f]{24}$/);
    await feedsAfter('after-index-rewrite');
  }, 90_000);

  it("registering under another processor's name, or a new one, with an object of its own to draw batches: refused", async () => {
    const { proxy: handler, binding } = await attacker.names.resolveProxy(procserverHandlerInterface, dispatcherNodeName(0));
    const own = (name: string): Aor => ({ name: '', host: binding.aor.host, port: binding.aor.port, object_id: processorServerObjectId(name, 999_999), interface_type: processorServerInterface.type, interface_version: processorServerInterface.version });
    // an object the attacker may serve (its own name), registered as item-processor-2 or as a new item-processor-3
    for (const name of ['item-processor-2', 'item-processor-3']) {
      await expect(handler.register_procserver(own('item-processor-1'), name, 'attacker', 999_999, 0), name).rejects.toThrow(/must have an id starting with "processor_server\/item-processor-[23]\/"/);
    }
    // an object of the new name's is registered, but the attacker cannot serve it: no batch reaches it
    expect(await trySubscribe(attacker, `esp.obj.processing::processor_server.*.*.processor_server.item-processor-3.>`)).toBe('denied');
    await feedsAfter('after-register-as-other');
  }, 60_000);

  it('no process of the stack was refused anything, nor stopped', () => {
    for (const [name, p] of Object.entries(rig.procs)) {
      expect(p.running, name).toBe(true);
      const refused = p.logs.filter((l) => permissionDenied.test(JSON.stringify(l)));
      expect(refused, `${name}: ${JSON.stringify(refused.slice(0, 3))}`).toEqual([]);
    }
  });
});
