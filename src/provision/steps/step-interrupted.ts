import type { StepRecord } from './step-record.js';

/**
 * Thrown by a step that Ctrl-C or SIGTERM stopped part way: its record says what was done
 * before the stop (`sent`: a request went out and its outcome is not known), so the
 * summary never calls a step skipped that changed the platform.
 */
export class StepInterrupted extends Error {
  constructor(readonly record: StepRecord) {
    super(record.reason);
    this.name = 'StepInterrupted';
  }
}
