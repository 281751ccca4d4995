/** shoptwin/mock: the stateful mock of the service, as MSW handlers and as a standalone server. */
// First: on a Node older than engines.node, one line and exit (openapi/node-version.ts).
import '../openapi/node-version.ts'
export * from './browser.ts'
export { createServer, type MockServer, type ServerOptions } from './server.ts'
export { createConnector, createConnectorHandlers, type Connector, type ConnectorOptions } from './connector/index.ts'
