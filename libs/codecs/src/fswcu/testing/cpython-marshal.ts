/**
 * Test helper: CPython's marshal as an oracle (see marshal_oracle.py). One python3 process per call, with the
 * whole batch of items in one JSON request, so a property test costs one process rather than one per value.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ORACLE = fileURLToPath(new URL('./marshal_oracle.py', import.meta.url));

export type OracleOp = 'dumps' | 'loads' | 'frame_dumps' | 'frame_loads';

export function runMarshalOracle(op: OracleOp, items: unknown[]): unknown[] {
  const result = spawnSync('python3', [ORACLE], {
    input: JSON.stringify({ op, items }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`python3 marshal oracle failed: ${result.stderr || String(result.error)}`);
  const parsed: unknown = JSON.parse(result.stdout);
  if (!Array.isArray(parsed) || parsed.length !== items.length) throw new Error('python3 marshal oracle: bad reply');
  return parsed;
}

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
