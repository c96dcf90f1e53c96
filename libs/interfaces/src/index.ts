/**
 * @esp/interfaces: the FSIDL of every interface, as code. One definition drives server dispatch, client proxies and
 * argument validation; TypeScript types are inferred from it.
 *
 *   import { masterDispatcherInterface, type Implementation } from '@esp/interfaces';
 *   const impl: Implementation<typeof masterDispatcherInterface> = { register_procserver: (...) => ..., ... };
 *   // server: middleware.activate(masterDispatcherInterface, impl, {...}); client: middleware.proxy(masterDispatcherInterface, aor)
 */
export * from './define-interface';
export * from './interface-version';
export * from './aor';
export * from './user-exceptions';
export { ExceptionRegistry } from './exception-registry';
export * from './name-server';
export * from './processing';
export * from './feeding';
export * from './configservice';
export * from './crawl';
