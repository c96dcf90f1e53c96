type ExceptionClass<E> = new (message: string, data?: Record<string, unknown>) => E;

/**
 * Rebuilds exceptions from their wire code as instances of the same class; an unknown code gives the base class
 * carrying that code, so nothing a peer raises is lost or mislabelled. Used for user and system exceptions alike.
 */
export class ExceptionRegistry<E extends Error & { readonly code: string }> {
  private readonly byCode = new Map<string, ExceptionClass<E>>();

  constructor(
    private readonly base: ExceptionClass<E>,
    classes: readonly ExceptionClass<E>[] = [],
  ) {
    for (const cls of classes) this.register(cls);
  }

  register(cls: ExceptionClass<E>): void {
    this.byCode.set(new cls('').code, cls);
  }

  fromWire(code: string, message: string, data: Record<string, unknown> = {}): E {
    const cls = this.byCode.get(code);
    if (cls) return new cls(message, data);
    const e = new this.base(message, data);
    Object.defineProperty(e, 'code', { value: code });
    return e;
  }
}
