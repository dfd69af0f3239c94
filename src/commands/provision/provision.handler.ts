/** `dpgw provision <manifest>`: the whole workflow for every data set of a manifest; the output formats are rendered in src/output/provision/. */
import type { CommandContext } from '../../command-kit/command-context.js';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { ProvisionCommand } from './provision.flags.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { ExitCode } from '../../errors/exit-code.js';
import type { SourceLocation, Where } from '../../errors/source-location.js';
import { HEALTH_STATUS_UP } from '../../contract/constants.js';
import { stopOnSignal } from '../../command-kit/interruption.js';
import { finalHealthCheck, pruneSkippedBecause, runExitCode, runOutcomeLine } from '../../provision/run-outcome.js';
import { planOutcome } from '../../provision/plan-outcome.js';
import { paths } from '../../contract/paths.js';
import { brokerAddresses, provisionSettingsOf, sessionOptionsOf, streamCheckModeOf, streamConnectionOf, streamPasswordOf, streamUserOf, tableSettingsOf } from '../../settings/core-options.js';
import { StreamPreflight } from '../../stream/stream-preflight.js';
import type { SampleCheck } from '../../provision/steps/sample-step.js';
import { checkedWhenSet, timeoutMs } from '../../settings/setting-values.js';
import { startProgress } from '../../output/progress.js';
import { locatedValue } from '../../olap/located-document.js';
import { loadManifest } from '../../provision/manifest.js';
import { appendStepSummary, githubActionsOf, setStepOutputs } from '../../output/github-actions.js';
import { itemsOf, itemsOfError, type ReportItem } from '../../provision/ci-reports.js';
import { checkOutputFile, writeFileAtomic } from '../../files/atomic-write.js';
import { checkBeforeRun, inferSettingsOf, plan, prepare, readyToRun, run, RUN_WIDE_READS_AT_ONCE, type DataSetResult, type RunReads } from '../../provision/provision-run.js';
import { type resolveSettings, resolveWithConfig } from '../../settings/resolve-settings.js';
import { configDirectory, loadConfigFile, type ConfigFile } from '../../settings/config-file.js';
import { flagAttribute, SETTING_DEFINITIONS, SIGN_IN_KEYS } from '../../settings/setting-definitions.js';
import type { StatementClient } from '../../query-engine/statement-client.js';
import type { SupersetClient } from '../../dashboard/superset-client.js';
import { verifyProfiles } from '../../provision/steps/verify-step.js';
import { confirmPrompt, hiddenPrompt, textPrompt } from '../shared/prompts.js';
import { replacementText, type Replacement } from '../../provision/steps/replace-table.js';
import { applyPrune, planPrune, skippedPrune, type PrunePlan } from '../../provision/prune.js';
import { MANIFEST_MARK_KEY } from '../../olap/manifest-mark.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import { plural } from '../../text/plural.js';
import { shown } from '../../names/platform-names.js';
import { Questions } from '../shared/questions.js';
import { askManifestFile } from '../shared/file-questions.js';
import { terminalPlan, type PlanToRender } from '../../output/provision/terminal-plan.js';
import { terminalSummary, type RunToRender } from '../../output/provision/terminal-summary.js';
import { finishedLine, stepLines } from '../../output/provision/terminal-progress.js';
import { markdownPlan, markdownSummary } from '../../output/provision/markdown.js';
import { planStepSummary, runStepSummary, stoppedStepSummary, type WorkflowReport } from '../../output/provision/step-summary.js';
import { failedDataSetAnnotations } from '../../output/provision/annotations.js';
import { junitReport } from '../../output/provision/junit.js';
import { codeQualityReport } from '../../output/provision/code-quality.js';
import { planJson, runJson } from '../../output/provision/json.js';
import { HalfDoneWork } from '../../provision/half-done-work.js';

export const provision: HandlerOf<ProvisionCommand> = async (context) => {
  const toWorkflow = workflowReportOf(context);
  let file: string | undefined;
  try {
    // A report path that is a link (`dpgw-junit.xml -> ~/.bashrc` committed in a merge request) ends the command before
    // anything is read or sent; no report is then written (file is not set yet), the link never written through.
    for (const request of context.options.report ?? []) checkOutputFile(request.file, REPORT_FILE);
    // The manifest as given, else chosen among the manifests under this folder at a terminal (without one: exit 2, nothing read or sent).
    const questions = new Questions(context);
    file = await questions.operand('<manifest>', context.args[0], () => askManifestFile(context));
    questions.done();
    return await provisionAndReport(context, file, toWorkflow);
  } catch (error) {
    // A step after this one reads the outputs of every exit, also one before a plan or a run exists (docs/ci.md).
    if (toWorkflow) stoppedInWorkflow(context, toWorkflow, file, error);
    // A manifest with problems is what a merge request most needs to see: its reports are written too.
    // A report that cannot be written is said, and the error that stopped the command stays the one reported.
    if (file !== undefined && context.options.report?.length && error instanceof DpgwError) {
      await writeReports(context, file, () => itemsOfError(error)).catch((writing: unknown) => context.reporter.problem(`the report was not written: ${writing instanceof DpgwError ? writing.toLine() : String(writing)}`));
    }
    throw error;
  }
};

type ProvisionContext = Parameters<HandlerOf<ProvisionCommand>>[0];
type ProvisionOutput = ReturnType<HandlerOf<ProvisionCommand>>;
type Loaded = Awaited<ReturnType<typeof loadManifest>>;
type Settings = Awaited<ReturnType<typeof resolveSettings>>;

/** Writes the job's summary and the step's outputs, once a run: from the plan or the run, else from the error that ended it. */
type ToWorkflow = (report: WorkflowReport) => void;

/** The writer of the summary and the outputs inside a GitHub Actions workflow; undefined outside one. */
function workflowReportOf(context: CommandContext): ToWorkflow | undefined {
  const actions = githubActionsOf(context.io.env);
  if (!actions) return undefined;
  let written = false;
  return ({ summary, outputs }) => {
    if (written) return;
    written = true;
    appendStepSummary(actions, summary);
    setStepOutputs(actions, { ...outputs });
  };
}

const provisionAndReport = async (context: ProvisionContext, file: string, toWorkflow: ToWorkflow | undefined): ProvisionOutput => {
  const { options, reporter, io } = context;
  const planOnly = options.plan === true || options.dryRun === true;

  // Everything that can fail without the platform fails here, before any request.
  const prompt = context.canPrompt ? (message: string) => hiddenPrompt(context, message) : undefined;
  const { loaded, settings, tableSettings, prepared, warn } = await loadAndPrepare(context, file);
  refuseUnsafePrune(context, file, loaded, planOnly);
  const { streamPassword, stream, sampling, preflight } = await streamChecksOf(context, loaded, settings, planOnly, prompt);

  const { createGatewayClient } = await import('../../command-kit/create-gateway-client.js');
  const client = createGatewayClient(settings, reporter, io, prompt);
  const engines = await queryEngines(context, loaded, settings);
  // A plan signs nothing in and reads no password.
  const dashboards = planOnly ? new Map<string, { client: SupersetClient; databaseName: string }>() : await dashboardTools(context, loaded, settings, prompt);
  const halfDone = new HalfDoneWork();
  const stop = stopOnSignal(
    (signal) => reporter.warn(`interrupted (${signal}): finishing the steps under way, starting no new ones (Ctrl-C again quits at once)`),
    ExitCode.Interrupted,
    () => halfDone.lines().forEach((line) => reporter.warn(`quit at once: ${line}`)),
  );
  const started = Date.now();
  try {
    const { ensureSignedIn } = await import('../../auth/session.js');
    await ensureSignedIn({ session: sessionOptionsOf(settings, io.env), env: io.env, warn: (m) => reporter.warn(m), info: (m) => reporter.info(m), prompt });
    const runOptions = {
      client,
      manifestMark: { name: loaded.name, named: loaded.named },
      settings: provisionSettingsOf(settings, tableSettings),
      streamPassword,
      stream,
      streamTimeoutMs: timeoutMs(settings),
      preflight,
      sampleCheck: sampling.check,
      sampleCheckOff: sampling.off,
      sampleIgnore: options.sampleIgnore,
      waitConsumingMs: options.waitConsuming * 1000,
      waitReloadMs: options.waitReload * 1000,
      forceCommit: options.forceCommit === true,
      concurrency: options.concurrency,
      failFast: options.failFast === true,
      failOnExists: options.failOnExists === true,
      adopt: options.adopt === true,
      allowReplace: options.allowReplace === true,
      // At a terminal, a replacement goes ahead once its table's name is typed; in a script it needs --allow-replace.
      ...(context.canPrompt && !planOnly && options.allowReplace !== true ? { confirmReplace: (replacement: Replacement) => confirmReplacement(context, replacement) } : {}),
      deleteTimeoutMs: timeoutMs(settings),
      waitTimeoutMs: options.waitTimeout * 1000,
      interrupted: stop.stopping,
      stopSignal: stop.signal,
      halfDone,
      warn,
      engineOf: (profile: string) => engines.get(profile)!,
      dashboardOf: (profile: string | undefined) => dashboards.get(profile ?? '')!,
    };
    // The data sets' requests, and the run's own reads beside them: the connections the gateway sees.
    client.limitRequestsAtOnce(options.concurrency + RUN_WIDE_READS_AT_ONCE);
    // At a terminal a run shows its plan and asks before it sends anything (terraform apply); --yes, or no terminal, runs as it always did.
    const asksFirst = !planOnly && context.canPrompt && options.yes !== true;
    const checked = await checkBeforeRun(loaded, prepared, runOptions, { forPlan: planOnly || asksFirst });
    // What --prune would delete, read before anything changes (GET requests only).
    const pruning = options.prune === true ? await planPrune(client, { manifestName: loaded.name, keptTables: new Set(prepared.map((p) => p.tableName)), keptSchemas: new Set(prepared.map((p) => p.schemaName)), olapSegment: runOptions.settings.olapSegment }) : undefined;
    // The question covers the prune the plan shows; without a terminal --prune needed --yes (refuseUnsafePrune).
    const reads = asksFirst ? await readyToRun(loaded, prepared, runOptions, await confirmPlan(context, { prepared, runOptions, reads: checked, pruning, healthCheck: loaded.manifest.healthCheck })) : checked;
    // A stream user the brokers refuse fails the run here, before anything is sent (brokers out of reach under auto: each data set says skipped).
    if (!planOnly && preflight && (await preflight.skippedBecause()) === undefined) await preflight.signIn();
    if (planOnly) {
      const planned = await plan(prepared, runOptions, reads);
      const healthCheck = loaded.manifest.healthCheck ? { path: paths.health(loaded.manifest.healthCheck === true ? undefined : loaded.manifest.healthCheck) } : undefined;
      return await reportPlan(context, file, toWorkflow, { planned, healthCheck, pruning }, (r) => whereOfResult(loaded, prepared, planned, r));
    }
    const progress = startProgress(reporter, io, `provisioning ${plural(prepared.length, 'data set')}`);
    let results: DataSetResult[];
    // In a workflow, each data set is a folded group of its steps, written whole as it finishes (data sets run side by side).
    const inGroups = githubActionsOf(io.env);
    // With --quiet (and --json outside a workflow) nothing is shown: no line is made for each data set.
    const finishedShown = inGroups ? reporter.options.githubActions && !reporter.options.quiet : progress.shown;
    try {
      results = await run(prepared, {
        ...runOptions,
        ...(progress.shown ? { onProgress: (done: number, total: number, current: string) => progress.update(`provisioning: ${done}/${total} done; ${current}`) } : {}),
        ...(finishedShown ? { onFinished: (result: DataSetResult, done: number, total: number) => (inGroups ? reporter.group(finishedLine(result, done, total), stepLines(result)) : progress.note(finishedLine(result, done, total))) } : {}),
      }, reads);
    } finally {
      progress.stop();
    }
    const ended = await afterDataSets(context, client, results, { pruning, healthCheck: loaded.manifest.healthCheck, timeout: timeoutMs(settings), stopping: stop.stopping });
    return await reportRun(context, file, toWorkflow, { results, ...ended, seconds: (Date.now() - started) / 1000 }, (r) => whereOfResult(loaded, prepared, results, r));
  } finally {
    stop.release();
    client.close();
    await preflight?.close();
    for (const engine of engines.values()) engine.close();
    for (const dashboard of dashboards.values()) dashboard.client.close();
  }
};

/** The manifest read, the run's settings resolved and every data set prepared: every problem of the manifest is found before any password is asked for or read. */
async function loadAndPrepare(context: ProvisionContext, file: string) {
  const { options, reporter, io } = context;
  const config = await loadConfigFile(configDirectory(io.env));
  const loaded = await loadManifest(file, {
    allowOutsideFiles: options.allowOutsideFiles === true,
    allowEndpoints: options.allowManifestEndpoints === true,
    allowSecrets: options.allowManifestSecrets === true,
    runValue: (profileKey, manifestProfile) => runValueWithoutManifest(config, options, io.env, profileKey, manifestProfile),
  });
  const settings = resolveWithConfig(
    {
      flags: options,
      env: io.env,
      manifest: { profile: loaded.manifest.profile ? locatedValue(loaded.document, ['profile'], loaded.manifest.profile) : undefined, settings: loaded.settings },
    },
    config,
  );
  checkedWhenSet(settings, 'platformVersion');
  const warnings = new Set<string>();
  const warn = (message: string) => {
    if (!warnings.has(message)) reporter.warn(message);
    warnings.add(message);
  };
  const tableSettings = tableSettingsOf(settings);
  const prepared = await prepare(loaded, { table: tableSettings, profiles: { names: [...settings.config.profiles.keys()], file: settings.config.path }, allowManifestEndpoints: options.allowManifestEndpoints === true, sampleIgnore: options.sampleIgnore }, warn);
  return { loaded, settings, tableSettings, prepared, warn };
}

/** --prune refused before any request: without a manifest name of its own, or without consent a script cannot give at a prompt. */
function refuseUnsafePrune(context: ProvisionContext, file: string, loaded: Loaded, planOnly: boolean): void {
  const { options } = context;
  if (options.prune !== true) return;
  // A name taken from the path is shared by every folder of that name (teamA/analytics, teamB/analytics): its mark cannot say which one's a table is.
  if (!loaded.named) {
    throw new DpgwError('MANIFEST_NAME_REQUIRED', `--prune needs a manifest with a name: of its own, and ${file} has none (its tables are marked ${MANIFEST_MARK_KEY}: ${loaded.name}, from its path, as any manifest in a folder named ${loaded.name} marks them); nothing was sent`, {
      where: loaded.document.at([]),
      hint: `add name: <a name no other manifest of this platform uses> at the top of the manifest, or leave out --prune`,
    });
  }
  // Deleting needs consent, and a script without it learns so before any request: at a terminal the run asks once it knows what it would delete.
  if (!planOnly && options.yes !== true && !context.canPrompt) {
    throw new DpgwError('CONFIRMATION_REQUIRED', '--prune deletes tables and schemas and needs confirmation, and there is no terminal to ask on; nothing was sent', { where: '--yes', hint: `see what it would delete with --plan --prune, then pass --yes` });
  }
}

/** The stream password, the connection an inferred schema reads its topic with, the sample check and the stream pre-flight of this run. */
async function streamChecksOf(context: ProvisionContext, loaded: Loaded, settings: Settings, planOnly: boolean, prompt: ((message: string) => Promise<string>) | undefined) {
  const { options, io } = context;
  // A plan asks for no password and compares tables without it, unless it reads a topic to show an inferred schema
  // (the sample step reads one only when it is at hand without asking: sampleCheckOf).
  const infers = loaded.entries.some((entry) => inferSettingsOf(entry) !== undefined);
  const streamPassword = planOnly && !infers ? undefined : await streamPasswordOf(settings, io.env, prompt);
  const stream = infers ? streamConnectionOf(settings, streamPassword) : undefined;
  // One connection to the brokers serves every table's stream pre-flight (a plan describes it and connects nowhere).
  // A schema inferred from its topic needs the brokers from here anyway: then out of reach fails the run before anything is sent, as with require.
  const asked = streamCheckModeOf(settings);
  const mode = asked === 'auto' && infers ? 'require' : asked;
  const sampling = await sampleCheckOf({ asked: options.sampleCheck !== false, mode, limit: options.sample, planOnly, streamPassword, settings, env: io.env });
  const preflight = mode === 'off' ? undefined : new StreamPreflight(planOnly ? { brokers: brokerAddresses(settings), username: streamUserOf(settings) } : streamConnectionOf(settings, streamPassword), { mode, timeoutMs: timeoutMs(settings) });
  return { streamPassword, stream, sampling, preflight };
}

/** The plan's output: its JSON, terminal or Markdown text, the report files and the job's summary. */
async function reportPlan(context: ProvisionContext, file: string, toWorkflow: ToWorkflow | undefined, toRender: PlanToRender, whereOf: (result: DataSetResult) => Where | undefined): ProvisionOutput {
  const { planned, pruning } = toRender;
  const outcome = planOutcome(planned, pruning, context.options.detailedExitcode === true);
  // A report that cannot be written ends the step with its own exit code: the outputs say that one, with the plan's counts.
  const reportFailure = await writeReports(context, file, () => itemsOf(planned, whereOf)).then(() => undefined, (error: unknown) => error);
  toWorkflow?.(planStepSummary(file, planned, pruning, outcome, reportFailure === undefined ? outcome.exitCode : exitCodeOf(reportFailure)));
  if (reportFailure !== undefined) throw reportFailure;
  return {
    data: planJson(file, toRender, outcome),
    exitCode: outcome.exitCode,
    human: (style) => (context.options.format === 'markdown' ? markdownPlan(`dpgw provision --plan ${file}`, planned, pruning) : terminalPlan(toRender, style)),
  };
}

/** After the data sets: the prune (or why it is skipped), then the final health check. Nothing new starts after Ctrl-C or SIGTERM: the health check neither. */
async function afterDataSets(context: ProvisionContext, client: GatewayClient, results: DataSetResult[], inputs: { pruning: PrunePlan | undefined; healthCheck: boolean | string | undefined; timeout: number; stopping: () => boolean }) {
  const interrupted = inputs.stopping();
  const { pruning } = inputs;
  const skipPrune = pruneSkippedBecause(results, interrupted);
  // Tables first, schemas after; not at all when a data set failed or the run was stopped.
  const pruned = !pruning ? undefined : skipPrune !== undefined ? { steps: skippedPrune(pruning, skipPrune), error: undefined } : await pruneWithProgress(context, client, pruning, inputs.timeout, inputs.stopping);
  const health = inputs.healthCheck && !interrupted ? await finalHealthCheck(client, inputs.healthCheck) : undefined;
  if (inputs.healthCheck && interrupted) context.reporter.warn('health check not run: the run was interrupted');
  return { interrupted, health, prune: pruning && pruned ? { plan: pruning, steps: pruned.steps } : undefined, pruneError: pruned?.error };
}

type RunEnded = RunToRender & { interrupted: boolean; pruneError?: DpgwError; seconds: number };

/** The run's output: its failures said, its outcome line, its JSON, terminal or Markdown summary, the report files and the job's summary. */
async function reportRun(context: ProvisionContext, file: string, toWorkflow: ToWorkflow | undefined, ended: RunEnded, whereOf: (result: DataSetResult) => Where | undefined): ProvisionOutput {
  const { results, interrupted, pruneError, health } = ended;
  const failed = results.filter((r) => r.status === 'failed');
  const prunedChanges = (ended.prune?.steps ?? []).some((step) => step.status === 'changed');
  const changed = results.some((r) => r.changed) || prunedChanges;
  const exitCode = runExitCode(results, { interrupted, health, detailedExitcode: context.options.detailedExitcode === true, pruned: ended.prune ? { changed: prunedChanges, error: pruneError } : undefined });
  const data = runJson(file, ended, { ok: failed.length === 0 && !interrupted && !pruneError, interrupted, changed, seconds: ended.seconds });
  reportProblems(context, failed, ended, whereOf);
  const outcome = runOutcomeLine(results, { interrupted, changed, pruneFailed: pruneError !== undefined });
  if (!context.reporter.options.json) context.reporter.info(`${outcome} in ${ended.seconds.toFixed(1)} s`);
  // A report that cannot be written ends the step with its own exit code: the outputs say that one, with the run's counts.
  const reportFailure = await writeReports(context, file, () => itemsOf(results, whereOf)).then(() => undefined, (error: unknown) => error);
  toWorkflow?.(runStepSummary(file, outcome, ended, reportFailure === undefined ? exitCode : exitCodeOf(reportFailure)));
  if (reportFailure !== undefined) throw reportFailure;
  return { data, exitCode, human: (style) => (context.options.format === 'markdown' ? markdownSummary(`dpgw provision ${file}: ${outcome}`, ended) : terminalSummary(ended, style)) };
}

/** A failed prune, each failed data set and a health check not UP, on stderr; in a workflow each failed data set is annotated at its entry of the manifest. */
function reportProblems(context: ProvisionContext, failed: DataSetResult[], { pruneError, health }: RunEnded, whereOf: (result: DataSetResult) => Where | undefined): void {
  const { reporter } = context;
  if (pruneError) reporter.error(new DpgwError(pruneError.errorCode, `prune: ${pruneError.message}`, { hint: pruneError.hint }), { stdout: false, annotate: false });
  // Each named by its data set, then where its error was found (a manifest's line, a schema file, a broker), as every other error says it.
  for (const result of failed) {
    const where = typeof result.error?.where === 'string' ? `${result.error.where}: ` : '';
    reporter.error(new DpgwError('DATA_SET_FAILED', `${result.dataset}: ${where}${String(result.error?.message ?? 'failed')}`, { hint: typeof result.error?.hint === 'string' ? result.error.hint : undefined }), { stdout: false, annotate: false });
  }
  for (const annotation of failedDataSetAnnotations(failed, whereOf)) reporter.annotate(annotation);
  if (health && health.status !== HEALTH_STATUS_UP) {
    reporter.problem(`health check after provisioning: ${health.error ?? `${health.status}; not UP: ${(health.failing ?? []).join(', ')}`}`);
  }
}

/**
 * How the run holds sampled messages against each schema: with the run's stream connection,
 * under the stream check's mode. A plan reads the messages only when the stream password is
 * at hand without asking (a plan asks for no password); else it says why it does not.
 */
async function sampleCheckOf(inputs: { asked: boolean; mode: 'auto' | 'require' | 'off'; limit: number; planOnly: boolean; streamPassword: string | undefined; settings: Awaited<ReturnType<typeof resolveSettings>>; env: NodeJS.ProcessEnv }): Promise<{ check?: SampleCheck; off?: string }> {
  if (!inputs.asked) return { off: '--no-sample-check' };
  if (inputs.mode === 'off') return { off: '--stream-check off' };
  const password = inputs.planOnly && inputs.streamPassword === undefined ? await streamPasswordOf(inputs.settings, inputs.env) : inputs.streamPassword;
  if (streamUserOf(inputs.settings) !== undefined && password === undefined) return { off: 'no stream password at hand for this plan: set DPGW_STREAM_PASSWORD to hold the messages against the schemas' };
  return { check: { stream: streamConnectionOf(inputs.settings, password), limit: inputs.limit, timeoutMs: timeoutMs(inputs.settings), mode: inputs.mode } };
}

/**
 * The dashboard tool as each profile the manifest's dashboard steps name ('' for the
 * run's own settings), signed in lazily but with settings and password checked before
 * any request.
 */
async function dashboardTools(context: CommandContext, loaded: Awaited<ReturnType<typeof loadManifest>>, settings: Awaited<ReturnType<typeof resolveSettings>>, prompt: ((message: string) => Promise<string>) | undefined) {
  const tools = new Map<string, { client: SupersetClient; databaseName: string }>();
  const profiles = new Set(loaded.entries.flatMap((entry) => (entry.dashboard ? [entry.dashboard.profile ?? ''] : [])));
  if (profiles.size === 0) return tools;
  const { createDashboardClient } = await import('../../command-kit/create-dashboard-client.js');
  for (const profile of profiles) {
    const profileSettings = profile === '' ? settings : settingsOfProfile(context, loaded, settings, profile);
    tools.set(profile, { client: await createDashboardClient(profileSettings, context.reporter, context.io, prompt), databaseName: profileSettings.values.dashboardDatabase.value! });
  }
  return tools;
}

/**
 * The flags and environment another profile (of a verify or dashboard step) resolves with:
 * the run's, less DPGW_TOKEN (the one token of the run's profile) and DPGW_PROFILE, and less
 * every identity setting the profile sets itself. The run's DPGW_USERNAME or --username is
 * the run's own sign-in (the admin who provisions): letting it beat the profile would check
 * access as the admin, never as the profile's user, since a session serves only the identity
 * the settings name (auth/session.ts); the run's DPGW_PASSWORD is that user's, not the profile's.
 */
function profileInputs(context: CommandContext, settings: Awaited<ReturnType<typeof resolveSettings>>, profile: string): { flags: Record<string, unknown>; env: NodeJS.ProcessEnv } {
  const own = settings.config.profiles.get(profile);
  const identity = SETTING_DEFINITIONS.filter((definition) => SIGN_IN_KEYS.includes(definition.key) && definition.profileKey !== undefined && own?.get(definition.profileKey) !== undefined);
  const flags: Record<string, unknown> = { ...context.options, profile };
  const env = withoutProfile(context.io.env);
  for (const definition of identity) {
    if (definition.flag) delete flags[flagAttribute(definition.flag)];
    if (definition.env) delete env[definition.env];
  }
  if (identity.some((definition) => definition.key === 'username')) delete env.DPGW_PASSWORD;
  return { flags, env };
}

/** Another profile's settings: its own profile under the run's flags and manifest settings (profileInputs). */
function settingsOfProfile(context: CommandContext, loaded: Awaited<ReturnType<typeof loadManifest>>, settings: Awaited<ReturnType<typeof resolveSettings>>, profile: string) {
  return resolveWithConfig({ ...profileInputs(context, settings, profile), manifest: { settings: loaded.settings } }, settings.config);
}

function withoutProfile(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.DPGW_TOKEN;
  delete copy.DPGW_PROFILE;
  return copy;
}

/**
 * The query engine as each profile the manifest's verify steps name, made before
 * any request so an unknown profile or a missing query-engine URL fails first.
 * Each profile's own session signs the checks in: DPGW_TOKEN, one token for the
 * run's main profile, is not used for them.
 */
async function queryEngines(context: CommandContext, loaded: Awaited<ReturnType<typeof loadManifest>>, settings: Awaited<ReturnType<typeof resolveSettings>>): Promise<Map<string, StatementClient>> {
  const profiles = new Set(loaded.entries.flatMap((entry) => (entry.verify ? verifyProfiles(entry.verify).map((p) => p.profile) : [])));
  const engines = new Map<string, StatementClient>();
  if (profiles.size === 0) return engines;
  const { createQueryEngineClient } = await import('../../command-kit/create-query-engine-client.js');
  for (const profile of profiles) {
    engines.set(profile, createQueryEngineClient(settingsOfProfile(context, loaded, settings, profile), context.reporter, { ...context.io, env: profileInputs(context, settings, profile).env }));
  }
  return engines;
}

/** A data set's line in the manifest (its `dataset` key), for annotations and reports. */
function whereOfResult(loaded: Awaited<ReturnType<typeof loadManifest>>, prepared: Array<{ entry: { index: number } }>, results: DataSetResult[], result: DataSetResult): SourceLocation | undefined {
  const entry = prepared[results.indexOf(result)]?.entry;
  return entry ? loaded.document.at(['dataSets', entry.index, 'dataset']) : undefined;
}

/** The report files asked for with --report, from the plan's or the run's items. */
/** The items are made only when a report is asked for: each item's file:line:column parses the manifest again for positions (41 ms at 200 data sets). */
async function writeReports(context: ProvisionContext, file: string, itemsOfRun: () => ReportItem[]): Promise<void> {
  const requests = context.options.report ?? [];
  if (requests.length === 0) return;
  const items = itemsOfRun();
  const suite = `dpgw provision ${file}`;
  for (const request of requests) {
    const text = request.kind === 'junit' ? junitReport(suite, items) : codeQualityReport(items, context.io.env.CI_PROJECT_DIR || process.cwd(), process.cwd());
    await writeFileAtomic(request.file, text, 0o644, REPORT_FILE);
  }
}

/** A report is the run's own output: an earlier one is replaced, a link never written through (there is no --force for reports). */
const REPORT_FILE = { where: '--report', force: false, existing: 'replace', linkHint: 'remove the link, or give --report another path' } as const;

/**
 * The job's summary and the step's outputs of a command stopped by an error before it had a plan
 * or a run to show (step-summary.ts). A failure to write them is said, and the error that stopped
 * the command stays the one reported.
 */
function stoppedInWorkflow(context: CommandContext, toWorkflow: ToWorkflow, file: string | undefined, thrown: unknown): void {
  const error = thrown instanceof DpgwError ? thrown : new DpgwError('UNEXPECTED_FAILURE', `unexpected error: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
  const command = `dpgw provision${context.options.plan === true || context.options.dryRun === true ? ' --plan' : ''}${file === undefined ? '' : ` ${file}`}`;
  try {
    toWorkflow(stoppedStepSummary(command, error, exitCodeOf(thrown), githubActionsOf(context.io.env)!));
  } catch (writing) {
    context.reporter.problem(`the job summary and the step outputs were not written: ${writing instanceof Error ? writing.message : String(writing)}`);
  }
}

/** The exit an error makes, as dispatch reports it (one that is not dpgw's own: 1). */
function exitCodeOf(error: unknown): number {
  return error instanceof DpgwError ? error.exitCode : ExitCode.Failure;
}

type PlanInputs = { prepared: Parameters<typeof plan>[0]; runOptions: Parameters<typeof plan>[1]; reads: RunReads; pruning: PrunePlan | undefined };

/**
 * At a terminal, before a run sends anything: its plan, as --plan prints it, and one question
 * (default no). A plan that changes nothing asks nothing. The run then walks the same steps
 * with the same reads of the store; each step's apply still checks what it sends against the
 * store as it then is (a table made or marked in between is compared or refused, never
 * overwritten blindly), so a change between the question and the run is met as a run without
 * a question meets it. No is exit 2 (CONFIRMATION_MISMATCH), Ctrl-C exit 130, nothing sent.
 */
async function confirmPlan(context: ProvisionContext, inputs: PlanInputs & { healthCheck: boolean | string | undefined }): Promise<RunReads> {
  const { reporter } = context;
  const planned = await plan(inputs.prepared, inputs.runOptions, inputs.reads);
  if (!planOutcome(planned, inputs.pruning, false).changes) return inputs.reads;
  const healthCheck = inputs.healthCheck ? { path: paths.health(inputs.healthCheck === true ? undefined : inputs.healthCheck) } : undefined;
  // On stderr, beside the question: stdout keeps only the run's result.
  for (const line of terminalPlan({ planned, healthCheck, pruning: inputs.pruning }, reporter.err)) reporter.notice(line);
  const yes = await confirmPrompt(context, 'Apply these changes?');
  if (!yes) throw new DpgwError('CONFIRMATION_MISMATCH', 'the plan was not confirmed; nothing was sent', { hint: 'run again and answer yes, or pass --yes to apply without asking (see the plan alone with --plan)' });
  return inputs.reads;
}

/** At a terminal, what a replacement loses, and the table's name to type; another answer is exit 2 with nothing sent. */
async function confirmReplacement(context: CommandContext, replacement: Replacement): Promise<void> {
  const name = replacement.tableName;
  context.reporter.warn(`table ${name} must be replaced (deleted and created anew): ${replacementText(replacement)}`);
  const typed = await textPrompt(context, `Type ${name} to replace table ${name}:`);
  if (typed !== name) throw new DpgwError('CONFIRMATION_MISMATCH', `${shown(typed)} is not ${name}: the replacement was not confirmed; nothing was sent`, { hint: `type ${name} exactly, pass --allow-replace, or undo the change in the manifest` });
}

/** The deletions one after another, each named on the progress line. */
async function pruneWithProgress(context: CommandContext, client: GatewayClient, plan: PrunePlan, timeout: number, interrupted: () => boolean) {
  const progress = startProgress(context.reporter, context.io, `pruning: ${plural(plan.steps.length, 'deletion')}`);
  try {
    return await applyPrune(client, plan, { timeoutMs: timeout, interrupted });
  } finally {
    progress.stop();
  }
}

/** The value a setting has in this run without the manifest's settings (its profile choice kept); undefined when unset or the profile is unknown (reported later, in full). */
function runValueWithoutManifest(config: ConfigFile, flags: Record<string, unknown>, env: NodeJS.ProcessEnv, profileKey: string, manifestProfile: string | undefined): string | undefined {
  const definition = SETTING_DEFINITIONS.find((d) => d.profileKey === profileKey);
  if (!definition) return undefined;
  try {
    const settings = resolveWithConfig({ flags, env, manifest: { profile: manifestProfile === undefined ? undefined : { value: manifestProfile, location: 'manifest' }, settings: new Map() } }, config);
    return settings.values[definition.key].value;
  } catch {
    return undefined;
  }
}
