/** The sandbox's health checks: every component and sub-component of the contract, each settable DOWN. */
import { HEALTH_COMPONENTS, HEALTH_GROUPS, HEALTH_STATUS_UP } from '../contract/constants.js';
import type { HealthRecord } from '../contract/types.js';

export const DOWN = 'DOWN';

export class HealthChecks {
  /** `component` or `component.subComponent` → status, for what is not UP. */
  private readonly overrides = new Map<string, string>();
  /** How many checks have run: each call runs a fresh one (the contract: never cached). */
  checks = 0;

  set(target: string, status: string): void {
    const [component, sub] = target.split('.');
    if (!component || !(component in HEALTH_COMPONENTS) || (sub !== undefined && !HEALTH_COMPONENTS[component]!.includes(sub))) {
      throw new RangeError(`unknown health component "${target}"; known: ${Object.keys(HEALTH_COMPONENTS).join(', ')}`);
    }
    if (status === HEALTH_STATUS_UP) this.overrides.delete(target);
    else this.overrides.set(target, status);
  }

  reset(): void {
    this.overrides.clear();
  }

  /** The full record, or one component's; undefined for an unknown component. */
  check(component?: string): HealthRecord | undefined {
    this.checks++;
    if (component === undefined) {
      const components = Object.fromEntries(Object.keys(HEALTH_COMPONENTS).map((name) => [name, this.component(name)]));
      return { status: worst(Object.values(components).map((c) => c.status)), components, groups: [...HEALTH_GROUPS] };
    }
    if (!(component in HEALTH_COMPONENTS)) return undefined;
    return { ...this.component(component), groups: [...HEALTH_GROUPS] };
  }

  private component(name: string): HealthRecord {
    const components = Object.fromEntries(HEALTH_COMPONENTS[name]!.map((sub) => [sub, { status: this.overrides.get(`${name}.${sub}`) ?? HEALTH_STATUS_UP }]));
    const own = this.overrides.get(name);
    return { status: own ?? worst(Object.values(components).map((c) => c.status)), components };
  }
}

function worst(statuses: string[]): string {
  return statuses.find((s) => s !== HEALTH_STATUS_UP) ?? HEALTH_STATUS_UP;
}
