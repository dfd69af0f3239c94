/** Messages read from a topic when no --sample is given (a topic can hold millions); in its own module, so the command tree imports no stream code. */
export const DEFAULT_TOPIC_SAMPLE = 200;
