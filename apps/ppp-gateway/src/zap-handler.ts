/**
 * A ZAP handler (ZeroMQ RFC 27) for the gateway's CURVE sockets: libzmq asks it about every CURVE handshake on
 * inproc://zeromq.zap.01 of the same context, and it admits the client keys of the allowed set (all when none is
 * given: then CURVE encrypts, and a client must know the server's public key).
 */
import type { Logger } from '@esp/logging';
import { Reply } from 'zeromq';
import { z85Encode } from './z85';

const ZAP_ENDPOINT = 'inproc://zeromq.zap.01';

export async function startZapHandler(allowed: Set<string> | undefined, log: Logger): Promise<{ stop(): void }> {
  const sock = new Reply();
  await sock.bind(ZAP_ENDPOINT);
  void (async () => {
    for await (const frames of sock) {
      // version, request id, domain, address, identity, mechanism, credentials...
      const [version, requestId, , address, , mechanism, key] = frames;
      const text = (b: Buffer | undefined) => (b ? b.toString('latin1') : '');
      let status = '400';
      let reason = 'not allowed';
      if (text(version) !== '1.0') reason = 'unsupported ZAP version';
      else if (text(mechanism) !== 'CURVE' || !key || key.length !== 32) reason = 'CURVE only';
      else {
        const client = z85Encode(key);
        if (!allowed || allowed.has(client)) {
          status = '200';
          reason = 'OK';
        } else log.warn({ peer: text(address), client_key: client }, 'CURVE client refused: its key is not allowed');
      }
      await sock.send([version ?? '1.0', requestId ?? '', status, reason, status === '200' && key ? z85Encode(key) : '', '']);
    }
  })().catch((err: Error) => log.debug({ err: err.message }, 'ZAP handler closed'));
  return { stop: () => sock.close() };
}
