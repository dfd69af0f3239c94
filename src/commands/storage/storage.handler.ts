/** `dpgw storage touch`: step 6 of the contract, for platforms older than 1.15.165. */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { StorageTouchCommand } from './storage.flags.js';
import { storageDecision, storagePathParts } from '../../catalog/table-and-storage-steps.js';
import { walkSteps } from '../../provision/executor.js';
import { failureOf, STORAGE_TOUCH_STEPS, type StorageTouchInputs } from '../../provision/command-steps.js';
import { checkedWhenSet } from '../../settings/setting-values.js';
import { resolveDataSet } from '../../catalog/resolve-data-set.js';
import { STORAGE_TOUCH_NOT_NEEDED_FROM } from '../../contract/constants.js';
import { whereSet } from '../../settings/resolve-settings.js';
import { renderPlannedSteps } from '../shared/dry-run.js';
import { Questions } from '../shared/questions.js';
import { DATA_SET_FLAG, dataSetFlag } from '../shared/data-set-question.js';

export const touch: HandlerOf<StorageTouchCommand> = async (context) => {
  const { options, reporter } = context;
  const questions = new Questions(context);
  questions.require([{ flag: DATA_SET_FLAG, given: options.dataset }]);
  const settings = await context.settings();
  checkedWhenSet(settings, 'platformVersion');
  const gateway = await context.gateway();
  const { dataSet: dataSetName, enablement } = await dataSetFlag(questions, context, options, true);
  questions.done();
  const resolved = await resolveDataSet(gateway, dataSetName, enablement);
  const storage = { dataSet: dataSetName, selfHref: resolved.selfHref, storageId: resolved.storageId };
  const [selfHref, storageId] = storagePathParts(storage);

  const configured = settings.values.platformVersion;
  const version = configured.value ?? (await gateway.platformVersion());
  const versionSource = configured.value !== undefined ? whereSet(configured) : version !== undefined ? 'GET /api/version' : undefined;
  const decision = storageDecision(version, options.force === true);
  const base = { dataSet: dataSetName, selfHref, storageId, platformVersion: version ?? null, versionSource: versionSource ?? null };

  if (!decision.touch) {
    reporter.info(`storage touch not needed: platform ${version} (${versionSource}) creates the permissions itself from ${STORAGE_TOUCH_NOT_NEEDED_FROM} on; nothing was sent (--force makes the call anyway)`);
    return { data: { ...base, touched: false, reason: decision.reason }, human: () => [] };
  }
  if (!decision.versionKnown) reporter.info(`platform version unknown (no --platform-version, and the gateway has no /api/version): touching the storage anyway, a harmless GET`);
  const inputs: StorageTouchInputs = { client: gateway, storage, version, force: options.force === true };
  if (options.dryRun === true) return renderPlannedSteps((await walkSteps('plan', STORAGE_TOUCH_STEPS, inputs)).steps, base);
  const walked = await walkSteps('apply', STORAGE_TOUCH_STEPS, inputs);
  if (walked.outcome !== 'done') throw failureOf(walked);
  const { answer } = inputs;
  const said = typeof answer?.body === 'object' && answer.body !== null && typeof (answer.body as { message?: unknown }).message === 'string' ? `: ${(answer.body as { message: string }).message}` : '';
  reporter.success(`touched the default storage of ${dataSetName}${said}`);
  reporter.next('query the table as a member of an enablement group');
  return { data: { ...base, touched: true, status: answer?.status ?? null, response: answer?.body ?? null }, human: () => [] };
};

