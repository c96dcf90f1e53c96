import { decodeXmlRpcResponse, encodeXmlRpcRequest, type XmlRpcInput, type XmlRpcValue } from '@esp/codecs';

/**
 * One XML-RPC call over HTTP with global fetch. A fault is thrown as the XmlRpcFault it is; HTTP errors and
 * timeouts as Errors that say which URL and method.
 *
 *   const n = await xmlRpcCall('http://cfg:16005/RPC2', 'RegisterModule', [{ port: 16015, type: 'NodeControl', ... }]);
 */
export async function xmlRpcCall(url: string, method: string, params: XmlRpcInput[], timeoutMs = 10_000): Promise<XmlRpcValue> {
  const res = await fetch(url, {
    method: 'POST',
    body: encodeXmlRpcRequest(method, params),
    headers: { 'Content-Type': 'text/xml' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`${method} at ${url}: HTTP ${res.status} ${new TextDecoder().decode(body).trim()}`);
  const reply = decodeXmlRpcResponse(body);
  if (reply.kind === 'fault') throw reply.fault;
  return reply.value;
}
