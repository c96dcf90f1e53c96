/**
 * @esp/xmlrpc-http: XML-RPC over HTTP for the servers of this workspace (node controller, config server) and their
 * clients, on the pure codec of @esp/codecs.
 *
 *   const server = await startXmlRpcHttpServer({ port: 0, handler: methodTable('NodeControl', methods), log });
 *   const list = await xmlRpcCall(`${server.url}`, 'GetProcessList', []);
 */
export * from './xmlrpc-http-server';
export * from './xmlrpc-methods';
export * from './xmlrpc-client';
export * from './admin-secret';
