/** dpgw as a library: the typed gateway client and the contract's types and constants. */
export { GatewayClient, type GatewayClientOptions, type Accepted, type StoreRead, type StoreDeletion } from './gateway/gateway-client.js';
export { HttpTransport, DEFAULT_TIMEOUT_MS, type HttpMethod, type TokenSupplier, type HttpTransportOptions, type RequestOptions, type HttpResponse, type HttpRefusal } from './gateway/http-transport.js';
export { GatewayError, type HttpService } from './gateway/gateway-error.js';
export { messageFromErrorBody, type ErrorBodyShape } from './gateway/error-body.js';
export { DEFAULT_RETRY, nextRetryDelay, parseRetryAfter, type RetryOptions } from './gateway/retry-policy.js';
export { DpgwError, type ErrorKind } from './errors/dpgw-error.js';
export { SourceLocation, isSourceLocation, whereText, type Where } from './errors/source-location.js';
export type { ErrorCode } from './errors/error-codes.js';
export { ExitCode } from './errors/exit-code.js';
export { paths, CATALOG_BASE, normaliseSelfHref } from './contract/paths.js';
export * from './contract/constants.js';
export type * from './contract/types.js';
export { topicOf, selfHrefOf, defaultStorageOf, parseSelfHref } from './catalog/data-set-facts.js';
export { maskSecrets, redactText, registerSecret } from './secrets/redaction.js';
