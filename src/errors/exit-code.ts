/** dpgw's exit codes; README.md documents them. */
export const ExitCode = {
  Ok: 0,
  Failure: 1,
  /** Usage or invalid input: nothing was sent. */
  Usage: 2,
  /** The gateway or platform rejected the request. */
  Rejected: 3,
  /** Authentication required or failed. */
  Auth: 4,
  /** Network unreachable or timed out. */
  Network: 5,
  /** A health check reported a status other than UP; `table status`: a partition not consumed, or an error of the store. */
  Unhealthy: 6,
  /** `provision --detailed-exitcode`: changes were made. */
  Changed: 7,
  /** `verify`: the query engine did not show the access the contract requires. */
  VerificationFailed: 8,
  /** Not found: the analytics store holds no schema or table of that name; the catalog no enabled data set of that name. */
  NotFound: 9,
  /** Interrupted (Ctrl-C). */
  Interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
