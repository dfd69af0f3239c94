/** The streamCheck setting: `auto` (the default), `require`, `off` (docs/tables.md, "The stream pre-flight"). A module of its own: settings checks load it at start-up. */
export type StreamCheckMode = 'auto' | 'require' | 'off';
export const STREAM_CHECK_MODES: readonly StreamCheckMode[] = ['auto', 'require', 'off'];
