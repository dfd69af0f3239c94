/** `dpgw storage touch`: step 6 of the contract, for platforms older than 1.15.165. */
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { StorageTouchCommand } from './storage.flags.js';
import { storageDecision, storagePathParts } from '../../catalog/table-and-storage-steps.js';
import { applyStorage } from '../../provision/steps/storage-step.js';
import { checkedWhenSet } from '../../settings/setting-values.js';
import { resolveDataSet } from '../../catalog/resolve-data-set.js';
import { STORAGE_TOUCH_NOT_NEEDED_FROM } from '../../contract/constants.js';
import { paths } from '../../contract/paths.js';
import { whereSet } from '../../settings/resolve-settings.js';
import { renderDryRun } from '../shared/dry-run.js';
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
  if (options.dryRun === true) return renderDryRun([{ method: 'GET', path: paths.dataSetStorage(selfHref, storageId) }], base);
  const { answer } = await applyStorage(gateway, storage, { version, force: options.force === true });
  const said = typeof answer?.body === 'object' && answer.body !== null && typeof (answer.body as { message?: unknown }).message === 'string' ? `: ${(answer.body as { message: string }).message}` : '';
  reporter.success(`touched the default storage of ${dataSetName}${said}`);
  reporter.next('query the table as a member of an enablement group');
  return { data: { ...base, touched: true, status: answer?.status ?? null, response: answer?.body ?? null }, human: () => [] };
};

