/**
 * @esp/codecs: pure encoders and streaming decoders. No NATS, no sockets.
 *
 *   import { FscmtFrameParser, encodeFscmtFrame, cheetahPackr, encodeXmlRpcRequest } from '@esp/codecs';
 *   const parser = new FscmtFrameParser((msg) => console.log(msg.dict, msg.priority));
 *   for await (const chunk of socket) parser.parse(chunk);
 */
export { CodecError } from './errors';
export * from './fswcu';
export * from './fscmt';
export * from './cheetah';
export * from './xmlrpc';
