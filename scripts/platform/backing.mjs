// The real systems behind the sandbox's gateway in the end-to-end tier (and
// bench:real), through the hooks of startSandbox({ backing }): topics on a real
// Kafka, the OLAP endpoints forwarded to a real Pinot controller, the platform's grants
// written to a real OPA. Kept out of the product: kafkajs is a development dependency.
import kafkajs from 'kafkajs';

/** Partitions of each topic, as the sandbox's own stream makes them (src/sandbox/stream/feed-messages.ts). */
const PARTITIONS = 3;

/**
 * Topics created on a real Kafka (SASL_PLAINTEXT, SCRAM-SHA-512) when a data set is enabled.
 * @param {{ brokerList: string, streamUser: string, streamPassword: string }} kafka
 * @returns {Promise<import('../../src/sandbox/sandbox.js').BackingStream>}
 */
export async function kafkaStream(kafka) {
  const { Kafka, logLevel } = kafkajs;
  const client = new Kafka({ clientId: 'dpgw-sandbox', brokers: [kafka.brokerList], sasl: { mechanism: 'scram-sha-512', username: kafka.streamUser, password: kafka.streamPassword }, logLevel: logLevel.NOTHING });
  const admin = client.admin();
  await admin.connect();
  return {
    brokerList: kafka.brokerList,
    user: kafka.streamUser,
    password: kafka.streamPassword,
    // false when it exists already: enabling is idempotent, so is this.
    createTopic: async (topic) => {
      await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });
    },
    close: () => admin.disconnect(),
  };
}

/**
 * The OLAP endpoints forwarded to a real store's controller (Pinot), and its queries to the
 * store's broker (when given), their answers passed on unchanged; a table it creates is
 * recorded in the sandbox's own store, for the grants.
 * @param {string} controller
 * @param {string} [broker]
 * @returns {(own: import('../../src/sandbox/olap-store.js').OlapStore) => import('../../src/sandbox/olap-store.js').StoreBackend}
 */
export function pinotStore(controller, broker) {
  const ask = async (method, path, body, base = controller) => {
    const response = await fetch(`${base}/${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
    const text = await response.text();
    let answer = text;
    try {
      answer = JSON.parse(text);
    } catch {
      // the store answered with text: pass it on as it is
    }
    return { status: response.status, body: answer };
  };
  const name = (value) => encodeURIComponent(value);
  return (own) => ({
    addSchema: (body) => ask('POST', 'schemas', body),
    addTable: async (body) => {
      const answer = await ask('POST', 'tables', body);
      const streams = body?.tableIndexConfig?.streamConfigs ?? {};
      const topic = streams[`stream.${streams.streamType}.topic.name`];
      if (answer.status >= 300 || !topic) return answer;
      own.tables.set(body.tableName, { definition: JSON.parse(JSON.stringify(body)), topic, created: new Date() });
      return { ...answer, table: body.tableName, topic };
    },
    updateTable: (table, body) => ask('PUT', `tables/${name(table)}`, body),
    readSchema: (schema) => ask('GET', `schemas/${name(schema)}`),
    readTable: (table) => ask('GET', `tables/${name(table)}`),
    consumingSegments: (table) => ask('GET', `tables/${name(table)}/consumingSegmentsInfo`),
    listTables: () => ask('GET', 'tables'),
    listSchemas: () => ask('GET', 'schemas'),
    deleteTable: async (table, type) => {
      const answer = await ask('DELETE', `tables/${name(table)}${type === undefined ? '' : `?type=${encodeURIComponent(type)}`}`);
      if (answer.status < 300) own.tables.delete(table);
      return answer;
    },
    deleteSchema: (schema) => ask('DELETE', `schemas/${name(schema)}`),
    externalView: (table) => ask('GET', `tables/${name(table)}/externalview`),
    query: (body) => (broker ? ask('POST', 'query/sql', body, broker) : Promise.resolve({ status: 404, body: { code: 404, error: 'no broker behind this gateway' } })),
    tableDebug: (table) => ask('GET', `debug/tables/${name(table)}`),
    reloadSegments: (table) => ask('POST', `segments/${name(table)}/reload?type=REALTIME`),
    reloadStatus: (jobId) => ask('GET', `segments/segmentReloadStatus/${name(jobId)}`),
    forceCommit: (table) => ask('POST', `tables/${name(table)}/forceCommit`),
    forceCommitStatus: (jobId) => ask('GET', `tables/forceCommitStatus/${name(jobId)}`),
    pauseStatus: (table) => ask('GET', `tables/${name(table)}/pauseStatus`),
    changeConsumption: (table, change, consumeFrom) => ask('POST', `tables/${name(table)}/${change}Consumption${consumeFrom === undefined ? '' : `?consumeFrom=${encodeURIComponent(consumeFrom)}`}`),
    // Read-only: TableConfigsRestletResource#validateConfig, PinotSchemaRestletResource#validateSchema, PinotTableRestletResource#checkTableConfig.
    validate: (call, body) => ask('POST', call === 'tableConfigs' ? 'tableConfigs/validate' : `${call}s/validate`, body),
  });
}

/**
 * The platform's authorization service: each granted table's groups (all its enablements'
 * together) written to OPA's data, data.dpgw.grants, where dpgw's query-access policy reads them.
 * @param {string} opaUrl
 */
export function opaGrants(opaUrl) {
  return async (permissions, catalog) => {
    for (const table of new Set(permissions.map((p) => p.table))) {
      const groups = [...new Set(catalog.permissions.filter((p) => p.table === table).flatMap((p) => p.groups))];
      const response = await fetch(`${opaUrl}/v1/data/dpgw/grants/${encodeURIComponent(table.toLowerCase())}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ groups }) });
      if (!response.ok) throw new Error(`the policy engine refused the grant on ${table}: ${response.status} ${await response.text()}`);
    }
  };
}
