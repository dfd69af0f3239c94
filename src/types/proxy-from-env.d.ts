// proxy-from-env ships no types; this is the one function dpgw calls.
declare module 'proxy-from-env' {
  /** The proxy URL for a request URL from HTTP(S)_PROXY / NO_PROXY, or '' for none. */
  export function getProxyForUrl(url: string | URL): string;
}
