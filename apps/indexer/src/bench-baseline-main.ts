/**
 * The baseline of `npm run bench:feed`: plain NATS requests carrying msgpack documents straight into the indexer's own
 * store (same SQLite settings, same upsert and full-text indexing, one transaction per batch), answered once
 * committed. No sessions, no processing, no callbacks: what the feeding chain is measured against.
 *
 *   tsx apps/indexer/src/bench-baseline-main.ts --nats <url> --data <dir> --subject <subject>
 */
import { parseArgs } from 'node:util';
import { unpackValue, packValue, Middleware } from '@esp/middleware';
import { createLogger } from '@esp/logging';
import type { Attributes } from './attributes';
import { DocumentStore, openCollectionDb } from './collection-store';

const { values } = parseArgs({ options: { nats: { type: 'string' }, data: { type: 'string' }, subject: { type: 'string' } } });
if (!values.nats || !values.data || !values.subject) {
  process.stderr.write('usage: bench-baseline-main --nats <url> --data <dir> --subject <subject>\n');
  process.exit(2);
}
const log = createLogger('bench-baseline');
const mw = await Middleware.connect({ name: 'bench-baseline', servers: values.nats, logger: log });
const db = openCollectionDb(values.data, 'baseline');
const store = new DocumentStore(db);
let opId = 0;
const writeBatch = db.transaction((docs: { id: string; attributes: Attributes }[]) => {
  const now = new Date().toISOString();
  for (const d of docs) store.upsert(d.id, d.attributes, ++opId, 0, now);
});
await mw.bus.subscribe(values.subject, (m) => {
  try {
    writeBatch(unpackValue(m.data) as { id: string; attributes: Attributes }[]);
    m.respond(packValue(true));
  } catch (err) {
    m.respond(packValue((err as Error).message));
  }
});
log.info({ subject: values.subject }, 'ready');
process.on('SIGTERM', () => {
  void mw.close().then(() => {
    db.close();
    process.exit(0);
  });
});
