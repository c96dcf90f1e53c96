import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { OperationState } from '@esp/codecs';
import { coreSessionFactoryInterface, coreSessionInterface, INDEX_SEARCH_NAME, INDEXING_DISPATCHER_NAME, searchInterface } from '@esp/interfaces';
import { ChildService, waitFor } from '@esp/testing';
import { describe, expect, it } from 'vitest';
import { CallbackRecorder } from './callback-recorder';
import { batch, update } from './ops';
import { useProcessHarness } from './process-harness';

const ENTRY = 'apps/indexer/src/main.ts';
const ROOT = new URL('../../../', import.meta.url).pathname;

describe('indexer as a process: kill -9 and restart', () => {
  const h = useProcessHarness('client-and-name-server', { timeoutMs: 10_000, dirPrefix: 'indexer-proc-' });

  it('killed after the commit with its statuses owed, restarted: the document is still there, its final comes once, a late copy is ignored', async () => {
    h.proc = await ChildService.start({ entry: ENTRY, args: ['--nats', h.ns.url, '--data', h.dir, '--collections', 'news,web', '--base-port', '18000'] });
    expect(readdirSync(h.dir).filter((f) => f.endsWith('.sqlite')).sort()).toEqual(['news.sqlite', 'web.sqlite']);
    const cb = await CallbackRecorder.start(h.client, 'kill-test-callback');
    let holdCompleted = true; // the client does not take the final status yet: it is owed when the process dies
    cb.refuse = (s) => holdCompleted && s.state === OperationState.completed;

    const { proxy: factory } = await h.client.names.resolveProxy(coreSessionFactoryInterface, INDEXING_DISPATCHER_NAME);
    const aor = await factory.create(11, 'news', cb.aor);
    const session = h.client.proxy(coreSessionInterface, aor);
    const first = batch(0, update(1, 'kept', { title: 'Survives a crash', body: 'written and fsynced before secured' }), update(2, 'also-kept', { title: 'Second' }));
    await session.process(first); // resolves once committed: the batch is on disk
    // secured and completed come out of one commit and travel in one callbacks call, refused while completed is held
    await waitFor(() => cb.attempts.some((s) => s.state === OperationState.completed), { what: 'a first attempt of completed' });
    expect(cb.attempts.slice(0, 2).map((s) => s.state)).toEqual([OperationState.secured, OperationState.completed]);
    expect(cb.acked).toEqual([]);

    await h.proc.kill(); // SIGKILL: no cleanup
    holdCompleted = false;
    await expect(session.__ping()).rejects.toMatchObject({ code: 'object_not_exist' });
    await h.proc.restart();

    // the owed statuses are delivered by the new process, from its outbox
    await waitFor(() => cb.acked.some((s) => s.state === OperationState.completed), { what: 'completed after the restart' });
    expect(cb.acked.some((s) => s.state === OperationState.secured)).toBe(true);
    // the same session object answers again (same AOR); the item processor's late copy of the batch is ignored
    await session.process(first);
    await session.process(batch(2, update(3, 'after', { title: 'After the restart' })));
    await waitFor(() => cb.acked.filter((s) => s.state === OperationState.completed).length >= 2);
    await new Promise((r) => setTimeout(r, 300));

    expect(cb.finalCounts([1, 2, 3])).toEqual({ 1: 1, 2: 1, 3: 1 });
    expect(cb.securedBeforeCompleted()).toBe(true);
    const finals = cb.acked.filter((s) => s.state === OperationState.completed).map((s) => `${s.first_op_id}-${s.last_op_id}`);
    expect(finals).toEqual(['1-2', '3-3']);

    const { proxy: search } = await h.client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect(await search.get('news', 'kept')).toMatchObject({ id: 'kept', op_id: 1, attributes: { title: 'Survives a crash' } });
    expect((await search.search('news', 'crash', 10, 0)).hits.map((h) => h.id)).toEqual(['kept']);
    expect(await search.count('news')).toBe(3);
  });

  it('a second indexer on the same data directory refuses to start (the databases are locked)', async () => {
    const second = spawnSync(process.execPath, ['--import', 'tsx', ENTRY, '--nats', h.ns.url, '--data', h.dir, '--collections', 'news', '--base-port', '19000'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, LOG_FORMAT: 'json', LOG_LEVEL: 'info', VITEST: '' },
      timeout: 20_000,
    });
    expect(second.status).toBe(1);
    expect(second.stdout).toMatch(/news\.sqlite is locked: another indexer process is using it/);
  });

  it('SIGTERM: stops gracefully and exits 0', async () => {
    expect(await h.proc!.stop()).toBe(0);
    expect(h.proc!.logs.some((l) => l['msg'] === 'indexer closed')).toBe(true);
  });

  it('--help prints usage; a bad option exits 2 with a clear message', () => {
    const help = spawnSync(process.execPath, ['--import', 'tsx', ENTRY, '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: indexer/);
    const bad = spawnSync(process.execPath, ['--import', 'tsx', ENTRY, '--base-port', 'many'], { cwd: ROOT, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--base-port must be an integer/);
  });
});
