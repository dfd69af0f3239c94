/** `--wait-reload`'s default, in seconds: a reload of a few segments takes seconds, of thousands of segments minutes. Apart from reload-step.ts, so the flags load nothing else. */
export const DEFAULT_WAIT_RELOAD_SECONDS = 120;
