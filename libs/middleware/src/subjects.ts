/**
 * Every NATS subject of the middleware is built here and nowhere else.
 *
 * A server object answers on esp.obj.<interface type>.<host>.<port>.<object_id>: the AOR's (host, port, object id)
 * are its identity, and its interface type comes first so that NATS permissions can say which roles may serve, or
 * call, which kind of object (esp.obj.processing::session.> for the distributors only: nobody else reads the
 * documents sent to sessions). Tokens are escaped so that any host or id gives exactly one valid, unambiguous subject.
 * An object id's '/'-separated segments are tokens of their own (`processor_server/item-processor-1/42` is
 * `...processor_server.item-processor-1.42`), so that a permission can name the objects of one owner
 * (`esp.obj.processing::processor_server.*.*.processor_server.item-processor-1.>`).
 */
const PREFIX = 'esp';

/** Escapes a value into one subject token: keeps [A-Za-z0-9_:-], writes anything else as %XX (UTF-8 bytes). */
export function subjectToken(value: string): string {
  if (value.length === 0) return '%';
  return value.replace(/[^A-Za-z0-9_:-]/g, (c) =>
    Array.from(new TextEncoder().encode(c), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

export function objectSubject(interfaceType: string, host: string, port: number, objectId: string): string {
  return `${PREFIX}.obj.${subjectToken(interfaceType)}.${subjectToken(host)}.${port}.${objectId.split('/').map(subjectToken).join('.')}`;
}

/**
 * Every object of `interfaceType`, on any host and port, whose id starts with the segments `idPrefix` ('/'
 * separated): what a permission names to give one owner its own objects.
 */
export function objectsWithIdPrefix(interfaceType: string, idPrefix: string): string {
  return `${PREFIX}.obj.${subjectToken(interfaceType)}.*.*.${idPrefix.split('/').map(subjectToken).join('.')}.>`;
}

/** Every object of one interface type, on any host: what a permission names. */
export function objectsOfType(interfaceType: string): string {
  return `${PREFIX}.obj.${subjectToken(interfaceType)}.>`;
}

/**
 * The reply subjects of a connection: _INBOX.<user>.> for a connection that authenticates as a user, so that a
 * permission can give each identity its own replies (a search result, a document fetched from the object store)
 * and nobody else's; plain _INBOX for one that does not.
 */
export function inboxPrefix(user?: string): string {
  return user ? `_INBOX.${subjectToken(user)}` : '_INBOX';
}

/** The name server's request subject; every name-server instance serves it in one queue group. */
export function nameServerSubject(): string {
  return `${PREFIX}.ns.rpc`;
}

/**
 * Where bind and unbind of a name go: esp.ns.w.<one token per path segment of the name>. Writes are on their own
 * subjects, a name's path in the subject, so that NATS permissions decide who may change which names
 * (esp.ns.w.esp.subsystems.processing.> for the distributors) while anyone may resolve on esp.ns.rpc.
 */
export function nameWriteSubject(name: string): string {
  return `${PREFIX}.ns.w.${name.split('/').map(subjectToken).join('.')}`;
}

/** Every name's write subject: what the name servers serve. */
export const NAME_WRITE_SUBJECTS = `${PREFIX}.ns.w.>`;

export const NAME_SERVER_QUEUE = 'esp-name-server';

/** JetStream KV bucket that holds the bindings. */
export const NAME_BUCKET = 'esp_names';
