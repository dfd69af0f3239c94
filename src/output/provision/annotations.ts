/** In a GitHub Actions workflow, the error annotations of a run: each failed data set at its entry of the manifest. */
import type { Where } from '../../errors/source-location.js';
import type { DataSetResult } from '../../provision/provision-run.js';
import { MAX_ANNOTATIONS, type Annotation } from '../github-actions.js';

/** The first failed data sets (the runner shows 10), each where `whereOf` places it. */
export function failedDataSetAnnotations(failed: DataSetResult[], whereOf: (result: DataSetResult) => Where | undefined): Annotation[] {
  return failed.slice(0, MAX_ANNOTATIONS).map((result) => ({ where: whereOf(result), title: `dpgw: data set ${result.dataset} failed`, message: String(result.error?.message ?? 'failed') }));
}
