declare const __DPGW_VERSION__: string;

/** The package version, inlined by the build (scripts/build.mjs) and by vitest.config.ts for tests. */
export const VERSION: string = __DPGW_VERSION__;
