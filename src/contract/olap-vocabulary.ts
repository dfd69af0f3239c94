/**
 * The analytics store's vocabulary that schemas and tables are written in:
 * data types, time units and date-time formats. The contract uses a subset
 * (CONTRACT_DATA_TYPES, `1:MILLISECONDS:EPOCH`); the store accepts these.
 * Shared by dpgw's validation and the sandbox's store, so both agree.
 */

export const STORE_DATA_TYPES = ['INT', 'LONG', 'FLOAT', 'DOUBLE', 'BIG_DECIMAL', 'BOOLEAN', 'TIMESTAMP', 'STRING', 'JSON', 'BYTES'] as const;
export const NUMERIC_DATA_TYPES: ReadonlySet<string> = new Set(['INT', 'LONG', 'FLOAT', 'DOUBLE', 'BIG_DECIMAL']);
export const TIME_UNITS = ['NANOSECONDS', 'MICROSECONDS', 'MILLISECONDS', 'SECONDS', 'MINUTES', 'HOURS', 'DAYS'] as const;

/** `<size>:<unit>:EPOCH`, `<size>:<unit>:SIMPLE_DATE_FORMAT:<pattern>`, and the pipe forms `EPOCH|<unit>|<size>`, `SIMPLE_DATE_FORMAT|<pattern>`, `TIMESTAMP`. */
export function isDateTimeFormat(format: string): boolean {
  const units = TIME_UNITS.join('|');
  return (
    new RegExp(`^[1-9]\\d*:(${units}):EPOCH$`).test(format) ||
    new RegExp(`^[1-9]\\d*:(${units}):SIMPLE_DATE_FORMAT:.+$`).test(format) ||
    new RegExp(`^EPOCH(\\|(${units})(\\|[1-9]\\d*)?)?$`).test(format) ||
    /^SIMPLE_DATE_FORMAT\|.+$/.test(format) ||
    format === 'TIMESTAMP'
  );
}

/** `<size>:<unit>`. */
export function isGranularity(granularity: string): boolean {
  return new RegExp(`^[1-9]\\d*:(${TIME_UNITS.join('|')})$`).test(granularity);
}

/** Default class names of the store's stream plugins (Pinot's JSON decoder and its Kafka 2.0 consumer factory). */
export const STREAM_PLUGIN_CLASSES = {
  decoder: 'org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder',
  consumerFactory: 'org.apache.pinot.plugin.stream.kafka20.KafkaConsumerFactory',
  stringDeserializer: 'org.apache.kafka.common.serialization.StringDeserializer',
  scramLoginModule: 'org.apache.kafka.common.security.scram.ScramLoginModule',
} as const;
