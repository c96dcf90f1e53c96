/**
 * @esp/middleware: MS-FSMW emulated on NATS. The only lib that talks to the NATS client.
 *
 *   import { Middleware } from '@esp/middleware';
 *   const mw = await Middleware.connect({ name: 'item-processor' });
 *   const { proxy } = await mw.names.resolveProxy(masterDispatcherInterface, 'esp/subsystems/processing/dispatcher');
 *   const id = await proxy.assign_dispatcher();
 */
export { Middleware, type MiddlewareOptions, type ActivateOptions } from './middleware';
export { ServerObject, type ServerObjectOptions } from './server-object';
export { type ProxyOptions } from './client-proxy';
export { BusState, type BusCondition, type BusStateEvents } from './bus-state';
export { NameServerClient } from './name-server-client';
export { bindingKey, parseBindingKey } from './name-key';
export { NameRegistry, type NameRegistryOptions, type BindingChange } from './name-registry';
export { serveNameServer } from './name-server-host';
export { bindOrTakeOver, NameHeld, NameContended, type BindOrTakeOverOptions } from './bind-or-take-over';
export { NatsCredentialsError, natsAuthOptions, type NatsAuthOptions } from './nats-auth';
export { RawBus, type RawMessage } from './raw-bus';
export { BlobStore, BlobError, DEFAULT_BLOB_TTL_MS, type BlobStoreOptions } from './blob-store';
export { contentStreamConfig, contentStreamName, contentSubjects, streamDifferences, SECURITY_FIELDS, TUNABLE_FIELDS, DEFAULT_CONTENT_MAX_BYTES, type ContentStreamOptions } from './content-stream';
export { packValue, unpackValue } from './wire-envelope';
export { objectsOfType, inboxPrefix, nameServerSubject, nameWriteSubject, NAME_WRITE_SUBJECTS, NAME_BUCKET } from './subjects';
export {
  SystemException,
  ObjectNotExist,
  CallTimeout,
  CallAbandoned,
  BadParameter,
  VersionMismatch,
  UnknownMethod,
  BadRequest,
  PayloadTooLarge,
  ServerBusy,
  InternalError,
  TransportError,
} from './system-exceptions';
export { ensureStackStreams, StackStreamError, type StackStreamOptions, type StackStreamReport } from './stack-streams';
