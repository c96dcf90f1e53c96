/**
 * The configuration service interface (`configservice::config` 5.2 at "fds/configservice").
 *
 *   import { configServiceInterface, CONFIG_SERVICE_NAME } from '@esp/interfaces';
 *   const { proxy } = await mw.names.resolveProxy(configServiceInterface, CONFIG_SERVICE_NAME);
 *   const nodeControllers = await proxy.get_active_module_list('NodeControl');   // [{ host, port, ... }]
 */
export * from './config';
