import { z } from 'zod';

/**
 * Address of a server object (MS-FSMW): which interface it serves, where, and under which object id. The NATS subject
 * of the object is derived from (host, port, object_id) by the middleware.
 */
export const aorSchema = z.object({
  name: z.string().max(1024),
  object_id: z.string().min(1).max(256),
  host: z.string().min(1).max(255),
  port: z.number().int().min(0).max(65535),
  interface_type: z.string().min(1).max(256),
  interface_version: z.string().regex(/^\d+\.\d+$/, 'interface_version must be "major.minor"'),
});

export type Aor = z.output<typeof aorSchema>;

/** Same server object (the version may differ: that is a rebind). */
export function sameObject(a: Aor, b: Aor): boolean {
  return a.host === b.host && a.port === b.port && a.object_id === b.object_id && a.interface_type === b.interface_type;
}
