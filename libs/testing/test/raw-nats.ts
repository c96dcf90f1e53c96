import { connect, type Socket } from 'node:net';

/**
 * A request over the bare NATS protocol (CONNECT, SUB, PUB, MSG / HMSG), for the harness's own tests, which may not
 * use the NATS client (only libs/middleware does) nor the middleware (which is tested with this harness).
 */
export async function natsRequest(url: string, subject: string, payload: string, timeoutMs = 5000): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply on ${subject} in ${timeoutMs} ms`)), timeoutMs);
      const finish = (err: Error | undefined, value?: string) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(value!);
      };
      let buf = Buffer.alloc(0);
      let greeted = false;
      socket.once('error', (err) => finish(err));
      socket.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        for (;;) {
          const eol = buf.indexOf('\r\n');
          if (eol < 0) return;
          const line = buf.subarray(0, eol).toString();
          const head = line.split(' ');
          if (head[0] === 'MSG' || head[0] === 'HMSG') {
            const total = Number(head[head.length - 1]);
            if (buf.length < eol + 2 + total + 2) return; // the body has not all arrived
            const body = buf.subarray(eol + 2, eol + 2 + total);
            const headerBytes = head[0] === 'HMSG' ? Number(head[head.length - 2]) : 0;
            const headers = body.subarray(0, headerBytes).toString();
            buf = buf.subarray(eol + 2 + total + 2);
            if (/^NATS\/1\.0 503/.test(headers)) return finish(new Error(`no responders on ${subject}`));
            return finish(undefined, body.subarray(headerBytes).toString());
          }
          buf = buf.subarray(eol + 2);
          if (head[0] === 'INFO' && !greeted) {
            greeted = true;
            const bytes = Buffer.byteLength(payload);
            socket.write(`CONNECT {"verbose":false,"pedantic":false,"headers":true,"no_responders":true,"protocol":1}\r\n`);
            socket.write(`SUB _INBOX.raw 1\r\nPUB ${subject} _INBOX.raw ${bytes}\r\n${payload}\r\n`);
          } else if (head[0] === 'PING') {
            socket.write('PONG\r\n');
          } else if (head[0] === '-ERR') {
            return finish(new Error(`server said ${line}`));
          }
        }
      });
    });
  } finally {
    socket.destroy();
  }
}

/** natsRequest with a JSON reply (the JetStream API answers in JSON). */
export async function natsRequestJson<T>(url: string, subject: string, payload: unknown): Promise<T> {
  return JSON.parse(await natsRequest(url, subject, typeof payload === 'string' ? payload : JSON.stringify(payload))) as T;
}
