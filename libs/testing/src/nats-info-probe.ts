import { connect } from 'node:net';

/**
 * True when a NATS server greets a new connection on host:port with its INFO line. A published container port is
 * accepted by Docker's proxy before the server inside listens, so an open port alone proves nothing.
 */
export function natsGreets(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, host);
    let seen = '';
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    s.on('data', (d: Buffer) => {
      seen += d.toString('latin1');
      if (seen.startsWith('INFO ')) finish(true);
      else if (seen.length >= 5) finish(false);
    });
    s.once('error', () => finish(false));
    s.once('close', () => finish(false));
  });
}
