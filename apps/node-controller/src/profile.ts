import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * A node profile: which apps one node runs, how many instances, with which arguments and environment.
 *
 *   {
 *     "node": "node-1",
 *     "processes": [
 *       { "name": "name-server", "entry": "apps/name-server/src/main.ts", "args": ["--wait"] },
 *       { "name": "item-processor", "entry": "apps/item-processor/src/main.ts", "instances": 2,
 *         "args": ["--name", "{name}", "--status-port", "0"], "env": { "LOG_LEVEL": "info" } }
 *     ]
 *   }
 *
 * `entry` is a TypeScript or JavaScript file run as `node --import tsx <entry> <args>` (a built node controller runs
 * the entry's build, dist/<root>/<name>.js, when there is one: @esp/cli-options entryNodeArgs), relative to the node
 * controller's working directory (--cwd). With `instances` > 1 the instances are named `<name>-1`, `<name>-2`, ...;
 * `{name}` and `{instance}` in args and env values are replaced by the instance's name and number (1-based).
 * Processes start in the order listed and stop in reverse order.
 */
const processSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, "_", "." and "-", not starting with a symbol'),
  entry: z.string().min(1),
  instances: z.number().int().min(1).max(64).default(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
});

export const nodeProfileSchema = z.strictObject({
  node: z.string().min(1).optional(),
  processes: z.array(processSchema),
});

export type NodeProfile = z.output<typeof nodeProfileSchema>;

/** One process the node controller supervises: an instance of a profile entry. */
export interface ProcessSpec {
  name: string;
  entry: string;
  args: string[];
  env: Record<string, string>;
}

export class ProfileError extends Error {
  override readonly name = 'ProfileError';
}

function fill(s: string, name: string, instance: number): string {
  return s.replaceAll('{name}', name).replaceAll('{instance}', String(instance));
}

/** Checks a profile and expands it into one ProcessSpec per instance; names must come out unique. */
export function expandProfile(raw: unknown): ProcessSpec[] {
  const r = nodeProfileSchema.safeParse(raw);
  if (!r.success) {
    throw new ProfileError(`invalid node profile: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  const out: ProcessSpec[] = [];
  for (const p of r.data.processes) {
    for (let i = 1; i <= p.instances; i++) {
      const name = p.instances === 1 ? p.name : `${p.name}-${i}`;
      out.push({
        name,
        entry: p.entry,
        args: p.args.map((a) => fill(a, name, i)),
        env: Object.fromEntries(Object.entries(p.env).map(([k, v]) => [k, fill(v, name, i)])),
      });
    }
  }
  const seen = new Set<string>();
  for (const s of out) {
    if (seen.has(s.name)) throw new ProfileError(`invalid node profile: two processes are named "${s.name}"`);
    seen.add(s.name);
  }
  return out;
}

export function loadProfile(path: string): ProcessSpec[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ProfileError(`cannot read node profile ${path}: ${(err as Error).message}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ProfileError(`node profile ${path} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  return expandProfile(json);
}
