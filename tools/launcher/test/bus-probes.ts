/**
 * Asking a real nats-server what an identity may do: subscribe (the server refuses with a permissions violation
 * that closes the subscription) and publish (a request on a subject nobody serves fails with "no responders" when
 * the publish was allowed, with a permissions violation when it was not).
 */
import type { Middleware } from '@esp/middleware';

const DENIED = /permissions? violation/i;

/** 'allowed' or 'denied': the server's answer to a subscription of `subject`. */
export async function trySubscribe(mw: Middleware, subject: string, waitMs = 400): Promise<'allowed' | 'denied'> {
  let error: Error | undefined;
  const sub = mw.nc.subscribe(subject, {
    callback: (err) => {
      if (err) error = err;
    },
  });
  await mw.nc.flush();
  const closed = await Promise.race([sub.closed.then((e) => e ?? 'closed'), new Promise<undefined>((r) => setTimeout(() => r(undefined), waitMs))]);
  if (!sub.isClosed()) {
    sub.unsubscribe();
    await mw.nc.flush();
  }
  const why = error ?? (closed instanceof Error ? closed : undefined);
  if (why && DENIED.test(why.message)) return 'denied';
  if (closed !== undefined && closed !== 'closed') throw new Error(`subscription of ${subject} ended: ${String(closed)}`);
  return 'allowed';
}

/** 'allowed' or 'denied': the server's answer to a publish on `subject` (sent as a request nobody answers). */
export async function tryPublish(mw: Middleware, subject: string): Promise<'allowed' | 'denied'> {
  try {
    await mw.nc.request(subject, new Uint8Array(0), { timeout: 1_000 });
    return 'allowed';
  } catch (err) {
    const e = err as Error & { cause?: Error };
    if (DENIED.test(e.message) || DENIED.test(e.cause?.message ?? '')) return 'denied';
    if (/no responders|503/i.test(e.message) || /no responders|503/i.test(e.cause?.message ?? '')) return 'allowed';
    throw err;
  }
}

export const permissionDenied = DENIED;
