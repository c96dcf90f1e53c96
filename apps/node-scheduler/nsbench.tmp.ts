import { SqliteNodeStore } from './src/store/sqlite-node-store';
import { entryFor } from './src/machine/queue-entries';
import { buildFscmtNodeSchedulerMessage, encodeFswcu } from '@esp/codecs';
import { mkdtempSync } from 'node:fs';
const N = 20000;
const entries = Array.from({ length: N }, (_, i) => entryFor(`http://127.0.0.1:8001/page-${i}.html`, 'http://127.0.0.1:8001/page-1.html', 3, []));
let t = performance.now();
for (const e of entries) encodeFswcu(buildFscmtNodeSchedulerMessage({ command: 'CMD_UM_URI', dspecName: 'web', entry: e }));
console.log('encode us/entry', ((performance.now() - t) * 1000) / N);
const s = new SqliteNodeStore(mkdtempSync('/tmp/nsbench/d'), 'n1');
const turn = () => new Promise((r) => setImmediate(r));
t = performance.now();
for (let i = 0; i < N; i += 20) { for (let j = i; j < i + 20; j++) s.queued('web', '127.0.0.1:8001', entries[j]!, false); await turn(); }
console.log('queued us/entry (20 per commit)', ((performance.now() - t) * 1000) / N);
t = performance.now();
for (let i = 0; i < N; i += 20) { for (let j = i; j < i + 20; j++) s.taken('web', entries[j]!.uri.uri); await turn(); }
console.log('taken us/entry', ((performance.now() - t) * 1000) / N);
t = performance.now();
for (let i = 0; i < N; i += 20) { for (let j = i; j < i + 20; j++) s.done('web', '127.0.0.1:8001', entries[j]!.uri.uri, false); await turn(); }
console.log('done us/entry', ((performance.now() - t) * 1000) / N);
t = performance.now();
for (let i = 0; i < N; i += 1) { s.done('web', '127.0.0.1:8001', entries[i]!.uri.uri, false); await turn(); }
console.log('done us/entry (1 per commit)', ((performance.now() - t) * 1000) / N);
