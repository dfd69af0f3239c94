/** The environment of the admin who provisions on the end-to-end platform, as a pipeline sets it: settings as DPGW_*, the password in DPGW_PASSWORD. */
import type { KafkaSettings, KeycloakSettings } from './global-setup.js';
import { cleanEnv } from '../helpers/run-dpgw.js';

export function adminEnv(gatewayUrl: string, keycloak: KeycloakSettings, kafka: KafkaSettings, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    DPGW_GATEWAY: gatewayUrl,
    DPGW_AUTH_URL: keycloak.authUrl,
    DPGW_REALM: keycloak.realm,
    DPGW_CLIENT_ID: keycloak.clientId,
    DPGW_CLIENT_SECRET: keycloak.clientSecret,
    DPGW_USERNAME: 'admin',
    DPGW_PASSWORD: keycloak.users.find((u) => u.username === 'admin')!.password,
    DPGW_STREAM_TYPE: 'kafka',
    DPGW_BROKER_LIST: kafka.brokerList,
    DPGW_REGISTRY_URL: 'http://127.0.0.1:8081',
    DPGW_STREAM_USER: kafka.streamUser,
    ...extra,
  });
}
