/**
 * The processing interfaces of the feeding chain (MS-FSCDFT, MS-FSDPD) and their constants.
 *
 *   import { masterDispatcherInterface, dispatcherNodeName, DISPATCHER_NAME, validateArgs } from '@esp/interfaces';
 *   const r = validateArgs(masterDispatcherInterface.methods.assign_dispatcher, ['procserver_1']);
 *   const handlerName = dispatcherNodeName(0); // 'esp/subsystems/processing/dispatcher/0'
 *
 * The FSIDL scalar helpers (fsidl-types.ts: fsidlLong, voidResult, aorOf, cheetahEntity, ...) are not re-exported,
 * to keep generic names out of the package's namespace; other interface folders of this lib may import them.
 */
export * from './constants';
export * from './entity-schemas';
export * from './session-guarantees';
export * from './master-dispatcher';
export * from './session-factory';
export * from './dispatcher-node';
export * from './processor-server';
export * from './procserver-handler';
export * from './processing-errors';
