/** `dpgw provision <manifest>`: the whole workflow for every data set of a manifest. */
import type { ChalkInstance } from 'chalk';
import type { CommandContext } from '../../command-kit/command-context.js';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { ProvisionCommand } from './provision.flags.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { ExitCode } from '../../errors/exit-code.js';
import { HEALTH_STATUS_UP } from '../../contract/constants.js';
import { stopOnSignal } from '../../command-kit/interruption.js';
import { finalHealthCheck, runExitCode, type HealthOutcome } from '../../provision/run-outcome.js';
import { paths } from '../../contract/paths.js';
import { brokerAddresses, provisionSettingsOf, sessionOptionsOf, streamCheckModeOf, streamConnectionOf, streamPasswordOf, streamUserOf, tableSettingsOf } from '../../settings/core-options.js';
import { StreamPreflight } from '../../stream/stream-preflight.js';
import type { SampleCheck } from '../../provision/steps/sample-step.js';
import { checkedWhenSet, timeoutMs } from '../../settings/setting-values.js';
import { startProgress } from '../../output/progress.js';
import { jsonLines } from '../../output/document-lines.js';
import { locatedValue } from '../../olap/located-document.js';
import { loadManifest } from '../../provision/manifest.js';
import { appendStepSummary, githubActionsOf, markdownFence, markdownText, MAX_ANNOTATIONS, setStepOutputs, whereInWorkspace } from '../../output/github-actions.js';
import { redactText } from '../../secrets/redaction.js';
import type { ValidationIssue } from '../../olap/schema-validation.js';
import { codeQualityReport, itemsOf, junitReport, type ReportItem } from '../../provision/ci-reports.js';
import { PLAN_FORMAT_VERSION } from '../../provision/plan-format.js';
import { checkOutputFile, writeFileAtomic } from '../../files/atomic-write.js';
import { checkBeforeRun, inferSettingsOf, plan, PLAN_ACTIONS, prepare, run, RUN_WIDE_READS_AT_ONCE, type DataSetResult, type PlanAction } from '../../provision/provision-run.js';
import { STEP_STATUSES } from '../../provision/steps/step-record.js';
import { type resolveSettings, resolveWithConfig } from '../../settings/resolve-settings.js';
import { configDirectory, loadConfigFile, type ConfigFile } from '../../settings/config-file.js';
import { flagAttribute, SETTING_DEFINITIONS, SIGN_IN_KEYS } from '../../settings/setting-definitions.js';
import type { StatementClient } from '../../query-engine/statement-client.js';
import type { SupersetClient } from '../../dashboard/superset-client.js';
import { verifyProfiles } from '../../provision/steps/verify-step.js';
import { confirmPrompt, hiddenPrompt } from '../shared/prompts.js';
import { applyPrune, planPrune, skippedPrune, type PrunePlan } from '../../provision/prune.js';
import { MANIFEST_MARK_KEY } from '../../olap/manifest-mark.js';
import type { StepRecord } from '../../provision/steps/step-record.js';
import type { GatewayClient } from '../../gateway/gateway-client.js';
import { plural } from '../../text/plural.js';
import { Questions } from '../shared/questions.js';
import { askManifestFile } from '../shared/file-questions.js';

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

/** Writes the job's summary and the step's outputs, once a run: from the plan or the run, else from the error that ended it. */
type WorkflowReport = (summary: string, outputs: { 'exit-code': number; changes: number; failed: number }) => void;

/** The writer of the summary and the outputs inside a GitHub Actions workflow; undefined outside one. */
function workflowReportOf(context: CommandContext): WorkflowReport | undefined {
  const actions = githubActionsOf(context.io.env);
  if (!actions) return undefined;
  let written = false;
  return (summary, outputs) => {
    if (written) return;
    written = true;
    appendStepSummary(actions, summary);
    setStepOutputs(actions, outputs);
  };
}

const provisionAndReport = async (context: Parameters<HandlerOf<ProvisionCommand>>[0], file: string, toWorkflow: WorkflowReport | undefined): ReturnType<HandlerOf<ProvisionCommand>> => {
  const { options, reporter, io } = context;
  const planOnly = options.plan === true || options.dryRun === true;

  // Everything that can fail without the platform fails here, before any request.
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
  const prompt = context.canPrompt ? (message: string) => hiddenPrompt(context, message) : undefined;
  const warnings = new Set<string>();
  const warn = (message: string) => {
    if (!warnings.has(message)) reporter.warn(message);
    warnings.add(message);
  };
  // Every problem of the manifest is found before any password is asked for or read.
  const tableSettings = tableSettingsOf(settings);
  const prepared = await prepare(loaded, { table: tableSettings, profiles: { names: [...settings.config.profiles.keys()], file: settings.config.path }, allowManifestEndpoints: options.allowManifestEndpoints === true, sampleIgnore: options.sampleIgnore }, warn);
  // A name taken from the path is shared by every folder of that name (teamA/analytics, teamB/analytics): its mark cannot say which one's a table is.
  if (options.prune === true && !loaded.named) {
    throw new DpgwError('MANIFEST_NAME_REQUIRED', `--prune needs a manifest with a name: of its own, and ${file} has none (its tables are marked ${MANIFEST_MARK_KEY}: ${loaded.name}, from its path, as any manifest in a folder named ${loaded.name} marks them); nothing was sent`, {
      where: loaded.document.at([]),
      hint: `add name: <a name no other manifest of this platform uses> at the top of the manifest, or leave out --prune`,
    });
  }
  // Deleting needs consent, and a script without it learns so before any request: at a terminal the run asks once it knows what it would delete.
  if (options.prune === true && !planOnly && options.yes !== true && !context.canPrompt) {
    throw new DpgwError('CONFIRMATION_REQUIRED', '--prune deletes tables and schemas and needs confirmation, and there is no terminal to ask on; nothing was sent', { where: '--yes', hint: `see what it would delete with --plan --prune, then pass --yes` });
  }
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

  const { createGatewayClient } = await import('../../command-kit/create-gateway-client.js');
  const client = createGatewayClient(settings, reporter, io, prompt);
  const engines = await queryEngines(context, loaded, settings);
  // A plan signs nothing in and reads no password.
  const dashboards = planOnly ? new Map<string, { client: SupersetClient; databaseName: string }>() : await dashboardTools(context, loaded, settings, prompt);
  const stop = stopOnSignal((signal) => reporter.warn(`interrupted (${signal}): finishing the steps under way, starting no new ones (Ctrl-C again quits at once)`), ExitCode.Interrupted);
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
      concurrency: options.concurrency,
      failFast: options.failFast === true,
      failOnExists: options.failOnExists === true,
      adopt: options.adopt === true,
      waitTimeoutMs: options.waitTimeout * 1000,
      interrupted: stop.stopping,
      stopSignal: stop.signal,
      warn,
      engineOf: (profile: string) => engines.get(profile)!,
      dashboardOf: (profile: string | undefined) => dashboards.get(profile ?? '')!,
    };
    // The data sets' requests, and the run's own reads beside them: the connections the gateway sees.
    client.limitRequestsAtOnce(options.concurrency + RUN_WIDE_READS_AT_ONCE);
    const reads = await checkBeforeRun(loaded, prepared, runOptions, { forPlan: planOnly });
    // What --prune would delete, read before anything changes (GET requests only).
    const pruning = options.prune === true ? await planPrune(client, { manifestName: loaded.name, keptTables: new Set(prepared.map((p) => p.tableName)), keptSchemas: new Set(prepared.map((p) => p.schemaName)), olapSegment: runOptions.settings.olapSegment }) : undefined;
    if (pruning?.steps.length && !planOnly && options.yes !== true) await confirmPrune(context, pruning);
    // A stream user the brokers refuse fails the run here, before anything is sent (brokers out of reach under auto: each data set says skipped).
    if (!planOnly && preflight && (await preflight.skippedBecause()) === undefined) await preflight.signIn();
    const healthCheck = loaded.manifest.healthCheck ? { path: paths.health(loaded.manifest.healthCheck === true ? undefined : loaded.manifest.healthCheck) } : undefined;
    if (planOnly) {
      const planned = await plan(prepared, runOptions, reads);
      const changes = planned.some((r) => r.changed || r.uncompared) || (pruning?.steps.length ?? 0) > 0;
      const actions = countActions([...planned.flatMap((r) => r.steps), ...(pruning?.steps ?? [])]);
      // A refused or blocked step means the run would fail: exit 2 at plan time, with or without --detailed-exitcode.
      // Else --detailed-exitcode: 0 only when everything was read back and matches the manifest.
      const exitCode = actions.refused + actions.blocked > 0 ? ExitCode.Usage : options.detailedExitcode === true && changes ? ExitCode.Changed : ExitCode.Ok;
      const reportFailure = await writeReports(context, file, () => itemsOf(planned, (r) => whereOfResult(loaded, prepared, planned, r))).then(() => undefined, (error: unknown) => error);
      if (toWorkflow) {
        const refusedDataSets = planned.filter((r) => r.steps.some((step) => step.action === 'refused')).length;
        toWorkflow(stepSummary(`dpgw provision --plan ${file}: ${refusedDataSets ? `${plural(refusedDataSets, 'data set')} refused` : changes ? 'changes to make' : 'no changes'}`, planned, (step) => step.action) + whyNotLines(planned) + (pruning ? fenced(pruneBlock(pruning, pruning.steps, (step) => step.action)) : ''), {
          'exit-code': reportFailure === undefined ? exitCode : exitCodeOf(reportFailure),
          changes: actions.create + actions.update + actions.delete,
          failed: refusedDataSets,
        });
      }
      if (reportFailure !== undefined) throw reportFailure;
      const planTitle = `dpgw provision --plan ${file}`;
      return {
        data: { formatVersion: PLAN_FORMAT_VERSION, manifest: file, changes, actions, plan: planned, ...(pruning ? { prune: pruneData(pruning, pruning.steps) } : {}), ...(healthCheck ? { healthCheck } : {}) },
        exitCode,
        human: (style) => (options.format === 'markdown' ? markdownLines(markdownPlan(planTitle, planned, pruning)) : renderPlan(planned, style, healthCheck, pruning)),
      };
    }
    const progress = startProgress(reporter, io, `provisioning ${plural(prepared.length, 'data set')}`);
    let results: DataSetResult[];
    try {
      results = await run(prepared, {
        ...runOptions,
        onProgress: (done, total, current) => progress.update(`provisioning: ${done}/${total} done; ${current}`),
        // In a workflow, each data set is a folded group of its steps, written whole as it finishes (data sets run side by side).
        onFinished: (result, done, total) => (githubActionsOf(io.env) ? reporter.group(finishedLine(result, done, total), stepLines(result)) : progress.note(finishedLine(result, done, total))),
      }, reads);
    } finally {
      progress.stop();
    }
    // Nothing new starts after Ctrl-C or SIGTERM: the health check neither.
    const interrupted = stop.stopping();
    const failedBeforePrune = results.some((r) => r.status === 'failed');
    // Tables first, schemas after; not at all when a data set failed or the run was stopped.
    const pruned = !pruning ? undefined : interrupted || failedBeforePrune ? { steps: skippedPrune(pruning, interrupted ? 'the run was interrupted' : 'a data set failed, and a run that failed prunes nothing') } : await pruneWithProgress(context, client, pruning, timeoutMs(settings), stop.stopping);
    const health = loaded.manifest.healthCheck && !interrupted ? await finalHealthCheck(client, loaded.manifest.healthCheck) : undefined;
    if (loaded.manifest.healthCheck && interrupted) reporter.warn('health check not run: the run was interrupted');
    const failed = results.filter((r) => r.status === 'failed');
    const prunedChanges = (pruned?.steps ?? []).some((step) => step.status === 'changed');
    const changed = results.some((r) => r.changed) || prunedChanges;
    const exitCode = runExitCode(results, { interrupted, health, detailedExitcode: options.detailedExitcode === true, pruned: pruned ? { changed: prunedChanges, error: pruned.error } : undefined });
    const summary = { manifest: file, ok: failed.length === 0 && !interrupted && !pruned?.error, interrupted, changed, seconds: (Date.now() - started) / 1000, dataSets: results, ...(pruning && pruned ? { prune: pruneData(pruning, pruned.steps) } : {}), ...(health ? { health } : {}) };
    if (pruned?.error) reporter.error(new DpgwError(pruned.error.errorCode, `prune: ${pruned.error.message}`, { hint: pruned.error.hint }), { stdout: false, annotate: false });
    for (const result of failed) reporter.error(new DpgwError('DATA_SET_FAILED', `${result.dataset}: ${String(result.error?.message ?? 'failed')}`, { hint: typeof result.error?.hint === 'string' ? result.error.hint : undefined }), { stdout: false, annotate: false });
    // In a workflow, each failed data set is annotated at its entry of the manifest (the runner shows 10).
    for (const result of failed.slice(0, MAX_ANNOTATIONS)) {
      reporter.annotate({ where: whereOfResult(loaded, prepared, results, result), title: `dpgw: data set ${result.dataset} failed`, message: String(result.error?.message ?? 'failed') });
    }
    if (health && health.status !== HEALTH_STATUS_UP) {
      reporter.problem(`health check after provisioning: ${health.error ?? `${health.status}; not UP: ${(health.failing ?? []).join(', ')}`}`);
    }
    const uncompared = results.filter((r) => r.uncompared).length;
    const outcome = interrupted ? 'interrupted' : failed.length ? `${failed.length} of ${results.length} failed` : pruned?.error ? 'the prune failed' : changed ? 'done: changes made' : uncompared ? `done: ${plural(uncompared, 'data set')} not compared (the gateway does not expose reads of the analytics store)` : 'done: nothing to change';
    if (!reporter.options.json) reporter.info(`${outcome} in ${summary.seconds.toFixed(1)} s`);
    // A report that cannot be written ends the step with its own exit code: the outputs say that one, with the run's counts.
    const reportFailure = await writeReports(context, file, () => itemsOf(results, (r) => whereOfResult(loaded, prepared, results, r))).then(() => undefined, (error: unknown) => error);
    toWorkflow?.(stepSummary(`dpgw provision ${file}: ${outcome}`, results, (step) => step.status ?? step.action) + whyNotLines(results) + (pruning && pruned ? fenced(pruneBlock(pruning, pruned.steps, (step) => `${step.action} ${step.status ?? ''}`.trimEnd())) : ''), {
      'exit-code': reportFailure === undefined ? exitCode : exitCodeOf(reportFailure),
      changes: [...results.flatMap((r) => r.steps), ...(pruned?.steps ?? [])].filter((step) => step.status === 'changed').length,
      failed: failed.length,
    });
    if (reportFailure !== undefined) throw reportFailure;
    const pruneLines = pruning && pruned ? pruneBlock(pruning, pruned.steps, (step) => (step.status ? `${step.action} ${step.status}` : step.action)) : [];
    return { data: summary, exitCode, human: (style) => [...(options.format === 'markdown' ? markdownLines(stepSummary(`dpgw provision ${file}: ${outcome}`, results, (step) => step.status ?? step.action)) : renderSummary(results, style, health)), ...(pruneLines.length ? ['', ...pruneLines] : [])] };
  } finally {
    stop.release();
    client.close();
    await preflight?.close();
    for (const engine of engines.values()) engine.close();
    for (const dashboard of dashboards.values()) dashboard.client.close();
  }
};

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

/** One data set as it finishes: `[3/8] track (enablement track): done in 1.2 s — enable changed, schema accepted, table changed, storage changed`. */
function finishedLine(result: DataSetResult, done: number, total: number): string {
  const steps = result.steps.map((s) => `${s.step} ${s.status}`).join(', ');
  const why = result.status === 'failed' && result.error ? `: ${String(result.error.message)}` : '';
  return `[${done}/${total}] ${result.dataset} (enablement ${result.enablement}): ${result.status} in ${(result.ms / 1000).toFixed(1)} s${steps ? ` — ${steps}` : ''}${why}`;
}

/** A data set's steps, one line each: `  table     update  changed       table track updated: …`. */
function stepLines(result: DataSetResult): string[] {
  return result.steps.map((s) => `  ${s.step.padEnd(9)} ${s.action.padEnd(ACTION_WIDTH)} ${(s.status ?? '').padEnd(STATUS_WIDTH)} ${s.reason}`);
}
const STATUS_WIDTH = Math.max(...STEP_STATUSES.map((status) => status.length));

function renderSummary(results: DataSetResult[], style: ChalkInstance, health: HealthOutcome | undefined): string[] {
  const stepOf = (r: DataSetResult, name: string) => r.steps.find((s) => s.step === name)?.status ?? '-';
  const has = (step: string) => results.some((r) => r.steps.some((s) => s.step === step));
  const optional = ['verify', 'dashboard'].filter(has);
  // One data set in two enablements is two rows that only the enablement tells apart.
  const names = results.map((r) => r.dataset);
  const withEnablement = new Set(names).size < names.length;
  // "3 of 3" partitions consuming; else the step's status (skipped: not checked).
  const consuming = (r: DataSetResult) => {
    const step = r.steps.find((s) => s.step === 'consume');
    if (step?.status === 'passed' && step.facts?.consuming !== undefined) return `${step.facts.consuming} of ${step.facts.partitions ?? '?'}`;
    return step?.status === 'skipped' ? 'not checked' : (step?.status ?? '-');
  };
  const rows = results.map((r) => [r.dataset, ...(withEnablement ? [r.enablement] : []), r.topic ?? '-', `${r.schema} ${stepOf(r, 'schema')}`, `${r.table} ${stepOf(r, 'table')}`, stepOf(r, 'storage'), consuming(r), ...optional.map((step) => stepOf(r, step)), r.status, `${(r.ms / 1000).toFixed(1)}s`]);
  const header = ['DATA SET', ...(withEnablement ? ['ENABLEMENT'] : []), 'TOPIC', 'SCHEMA', 'TABLE', 'STORAGE', 'CONSUMING', ...optional.map((step) => step.toUpperCase()), 'STATUS', 'TIME'];
  const statusColumn = header.indexOf('STATUS');
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const colour = (status: string, text: string) => (status === 'done' ? style.green(text) : status === 'failed' ? style.red(text) : style.yellow(text));
  const healthLine = health ? [`health: ${health.status === HEALTH_STATUS_UP ? style.green(health.status) : style.red(`${health.status}${health.failing?.length ? `; not UP: ${health.failing.join(', ')}` : ''}`)}`] : [];
  return [style.bold(line(header)), ...rows.map((row) => colour(row[statusColumn]!, line(row))), ...healthLine];
}

/** A data set's line in the manifest (its `dataset` key), for annotations and reports. */
function whereOfResult(loaded: Awaited<ReturnType<typeof loadManifest>>, prepared: Array<{ entry: { index: number } }>, results: DataSetResult[], result: DataSetResult): string | undefined {
  const entry = prepared[results.indexOf(result)]?.entry;
  return entry ? loaded.document.at(['dataSets', entry.index, 'dataset']) : undefined;
}

/** The report files asked for with --report, from the plan's or the run's items. */
/** The items are made only when a report is asked for: each item's file:line:column parses the manifest again for positions (41 ms at 200 data sets). */
async function writeReports(context: Parameters<HandlerOf<ProvisionCommand>>[0], file: string, itemsOfRun: () => ReportItem[]): Promise<void> {
  const requests = context.options.report ?? [];
  if (requests.length === 0) return;
  const items = itemsOfRun();
  const suite = `dpgw provision ${file}`;
  for (const request of requests) {
    const text = request.kind === 'junit' ? junitReport(suite, items) : codeQualityReport(items, context.io.env.CI_PROJECT_DIR || process.cwd());
    await writeFileAtomic(request.file, text, 0o644, REPORT_FILE);
  }
}

/** A report is the run's own output: an earlier one is replaced, a link never written through (there is no --force for reports). */
const REPORT_FILE = { where: '--report', force: false, existing: 'replace', linkHint: 'remove the link, or give --report another path' } as const;

/** What stopped the command before its plan or run had a result, as the summary's title says it (the exit codes of docs/ci.md); a manifest's problems say so themselves. */
const STOPPED_BECAUSE: Partial<Record<DpgwError['kind'], string>> = {
  input: 'refused',
  usage: 'refused',
  rejected: 'the gateway refused',
  auth: 'the sign-in failed',
  network: 'a server could not be reached',
  interrupted: 'interrupted',
};
/** A job summary has room for a terminal's worth of problems; the annotations and --json have the rest. */
const SUMMARY_PROBLEMS = 100;

/**
 * The summary and the outputs of a command stopped by an error before it had a plan or a
 * run to show: exit-code as the process exits, no change, and failed counting the data sets
 * the manifest's problems are in. The summary names what stopped it and lists the problems,
 * each at its place; secrets are masked as on the terminal. A failure to write them is said,
 * and the error that stopped the command stays the one reported.
 */
function stoppedInWorkflow(context: CommandContext, toWorkflow: WorkflowReport, file: string | undefined, thrown: unknown): void {
  const error = thrown instanceof DpgwError ? thrown : new DpgwError('UNEXPECTED_FAILURE', `unexpected error: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
  const actions = githubActionsOf(context.io.env)!;
  const issues = Array.isArray(error.details?.issues) ? (error.details.issues as ValidationIssue[]) : [];
  const problems = issues.length ? issues.map((issue) => ({ where: issue.where, text: `${issue.field}: ${issue.message}` })) : [{ where: error.where, text: `${error.message}${error.hint ? ` — ${error.hint}` : ''}` }];
  const line = (problem: { where?: string; text: string }) => `- ${problem.where ? `${markdownText(redactText(whereInWorkspace(actions, problem.where)))}: ` : ''}${markdownText(redactText(problem.text))}`;
  const command = `dpgw provision${context.options.plan === true || context.options.dryRun === true ? ' --plan' : ''}${file === undefined ? '' : ` ${file}`}`;
  const because = `${issues.length ? `the manifest was refused: ${plural(issues.length, 'problem')}` : (STOPPED_BECAUSE[error.kind] ?? 'failed')} (exit ${error.exitCode})`;
  const summary = [
    `### ${markdownText(redactText(`${command}: ${because}`))}`,
    '',
    ...problems.slice(0, SUMMARY_PROBLEMS).map(line),
    ...(problems.length > SUMMARY_PROBLEMS ? [`- … and ${problems.length - SUMMARY_PROBLEMS} more; \`--json\` lists them all`] : []),
    '',
  ].join('\n');
  const dataSets = new Set(issues.flatMap((issue) => /^dataSets\[(\d+)\]/.exec(issue.field)?.[1] ?? []));
  try {
    toWorkflow(summary, { 'exit-code': exitCodeOf(thrown), changes: 0, failed: dataSets.size });
  } catch (writing) {
    context.reporter.problem(`the job summary and the step outputs were not written: ${writing instanceof Error ? writing.message : String(writing)}`);
  }
}

/** The exit an error makes, as dispatch reports it (one that is not dpgw's own: 1). */
function exitCodeOf(error: unknown): number {
  return error instanceof DpgwError ? error.exitCode : ExitCode.Failure;
}

/** A manifest's problems (or the one error) as report items, each at its file, line and column. */
function itemsOfError(error: DpgwError): ReportItem[] {
  const issues = Array.isArray(error.details?.issues) ? (error.details.issues as Array<{ where: string; field: string; message: string }>) : [];
  if (issues.length) return issues.map((issue) => ({ name: issue.field, where: issue.where, failure: issue.message }));
  return [{ name: 'provision', where: error.where, failure: error.message }];
}

/** Markdown dpgw wrote as lines: every value in it went through markdownText or markdownFence, which keep it on its line. */
function markdownLines(markdown: string): string[] {
  return markdown.replace(/\n$/, '').split('\n');
}

/** The plan for a pull-request comment: the table of actions, and what differs under it. */
function markdownPlan(title: string, planned: DataSetResult[], pruning: PrunePlan | undefined): string {
  const differences = planned.flatMap((r) =>
    r.steps
      .filter((step) => step.difference?.length || step.action === 'refused')
      .map((step) => [`**${markdownText(r.dataset)}** — ${step.step} (${step.action}): ${markdownText(step.reason)}`, ...(step.difference?.length ? [markdownFence(step.difference, 'diff')] : [])].join('\n')),
  );
  const prune = pruning ? [fenced(pruneBlock(pruning, pruning.steps, (step) => step.action)).trim()] : [];
  return [stepSummary(title, planned, (step) => step.action ?? step.status), ...differences, ...prune].join('\n\n');
}

/** The plan or the run as a Markdown table for the job's step summary: a row per data set, a column per step. No secret is in it: names and actions only. */
function stepSummary(title: string, results: DataSetResult[], cell: (step: DataSetResult['steps'][number]) => string): string {
  const steps = [...new Set(results.flatMap((r) => r.steps.map((step) => step.step)))];
  const rows = results.map((r) => `| ${markdownText(r.dataset)} | ${steps.map((name) => markdownText(r.steps.find((step) => step.step === name) ? cell(r.steps.find((step) => step.step === name)!) : '')).join(' | ')} | ${markdownText(r.status)} |`);
  return [`### ${markdownText(title)}`, '', `| data set | ${steps.join(' | ')} | status |`, `|---|${steps.map(() => '---').join('|')}|---|`, ...rows, ''].join('\n');
}

/**
 * Under the summary's table, why each refused or failed step is so (a table another manifest owns,
 * a schema the store would refuse): a pull request's reader sees it without opening the log. One
 * line each, the reason as Markdown text; no difference (the table stays small for thousands of rows).
 */
function whyNotLines(results: DataSetResult[]): string {
  const lines = results.flatMap((r) => r.steps.filter((step) => step.action === 'refused' || step.status === 'failed').map((step) => `- **${markdownText(r.dataset)}** — ${step.step} (${step.status ?? step.action}): ${markdownText(redactText(step.reason))}`));
  return lines.length ? `\n${lines.join('\n')}\n` : '';
}

/** How many steps of the plan would take each action (every action counted, zeros too, so a pipeline reads any of them). */
function countActions(steps: StepRecord[]): Record<PlanAction, number> {
  const counts = Object.fromEntries(PLAN_ACTIONS.map((action) => [action, 0])) as Record<PlanAction, number>;
  for (const step of steps) if (step.action) counts[step.action]++;
  return counts;
}

/** The prune's part of --json: the mark looked for, its steps, and what it never deletes. */
function pruneData(plan: PrunePlan, steps: StepRecord[]) {
  return { manifest: plan.manifest, mark: { key: MANIFEST_MARK_KEY, value: plan.manifest }, steps, note: plan.note };
}

/** The prune as lines under the plan or the summary: each deletion, and the note about enablements once. */
function pruneBlock(plan: PrunePlan, steps: StepRecord[], cell: (step: StepRecord) => string): string[] {
  return [
    `prune (tables marked ${MANIFEST_MARK_KEY}: ${plan.manifest})`,
    ...(steps.length ? steps.map((s, i) => `  ${i + 1}. ${s.step.padEnd(9)} ${cell(s).padEnd(ACTION_WIDTH)} ${s.reason}`) : ['  nothing to delete: no table marked by this manifest is missing from it']),
    `  ${plan.note}`,
  ];
}

/** Lines as a Markdown code block (names pass the name rule; a reason quoting a server is escaped, and the fence outlasts any backticks). */
function fenced(lines: string[]): string {
  return `\n${markdownFence(lines)}\n`;
}

/** At a terminal, what --prune would delete, and a question; no is exit 2 with nothing sent. */
async function confirmPrune(context: CommandContext, plan: PrunePlan): Promise<void> {
  const what = [...plan.tables.map((name) => `table ${name}`), ...plan.schemas.map((name) => `schema ${name}`)];
  context.reporter.warn(`--prune would delete from the analytics store (marked ${MANIFEST_MARK_KEY}: ${plan.manifest}, no longer in the manifest):`);
  for (const line of what) context.reporter.info(`  ${line}`);
  const yes = await confirmPrompt(context, `Delete ${plural(plan.tables.length, 'table')} and ${plural(plan.schemas.length, 'schema')}?`);
  if (!yes) throw new DpgwError('CONFIRMATION_MISMATCH', 'the prune was not confirmed; nothing was sent', { hint: 'run again and answer yes, pass --yes, or leave out --prune' });
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

/** A plan's action as its own column, padded to the longest action word. */
function actionCell(action: PlanAction, style: ChalkInstance): string {
  const text = action.padEnd(ACTION_WIDTH);
  if (action === 'create') return style.green(text);
  if (action === 'update' || action === 'not-compared') return style.yellow(text);
  if (action === 'delete' || action === 'refused' || action === 'blocked') return style.red(text);
  return action === 'none' || action === 'skipped' ? style.dim(text) : text;
}
const ACTION_WIDTH = Math.max(...PLAN_ACTIONS.map((action) => action.length));

function renderPlan(planned: DataSetResult[], style: ChalkInstance, healthCheck: { path: string } | undefined, pruning: PrunePlan | undefined): string[] {
  const blocks = planned.map((r) =>
    [
      style.bold(`${r.dataset} (${r.datasource})`),
      ...r.steps.flatMap((s, i) => [
        `  ${i + 1}. ${s.step.padEnd(9)} ${actionCell(s.action, style)} ${s.action === 'skipped' ? style.dim(s.reason) : s.action === 'refused' || s.action === 'blocked' ? style.red(s.reason) : s.reason}`,
        ...(s.difference ?? []).map((line) => `       ${line.startsWith('+') ? style.green(line) : line.startsWith('-') ? style.red(line) : style.yellow(line)}`),
        // The inferred schema as its serializer wrote it (schema-text.ts: every name one scalar on its line).
        ...(s.shown ? s.shown.trimEnd().split('\n').map((line) => `     ${line}`) : []),
      ]),
      // A new table is shown whole; an existing one by what differs.
      ...r.steps.filter((s) => s.step === 'table' && s.request?.method === 'POST').flatMap((s) => jsonLines(s.request!.body).map((line) => `     ${line}`)),
    ],
  );
  const health = healthCheck ? [[style.bold('health'), `  after provisioning: GET ${healthCheck.path}; not UP makes the run exit 6`]] : [];
  // A refused step blocks the rest of its data set: nothing of it would change, so it counts as refused only.
  const isRefused = (r: DataSetResult) => r.steps.some((s) => s.action === 'refused');
  const changing = planned.filter((r) => r.changed && !isRefused(r)).length;
  const uncompared = planned.filter((r) => r.uncompared).length;
  const refused = planned.filter(isRefused).length;
  const prune = pruning ? [pruneBlock(pruning, pruning.steps, (step) => step.action).map((line, i) => (i === 0 ? style.bold(line) : line.replace(/^( {2}\d+\. \S+ +)(delete)/, (_, before: string, action: string) => `${before}${style.red(action)}`)))] : [];
  const deletions = pruning?.steps.length ? `${plural(pruning.tables.length, 'table')} and ${plural(pruning.schemas.length, 'schema')} to delete` : '';
  const totals = [
    changing ? `${plural(changing, 'data set')} to change` : deletions || refused ? '' : 'no changes',
    deletions,
    uncompared ? `${plural(uncompared, 'data set')} not compared (the gateway does not expose reads of the analytics store)` : '',
    refused ? `${plural(refused, 'data set')} refused: the run would fail (exit 2)` : '',
  ]
    .filter(Boolean)
    .join('; ');
  // Blocks apart by an empty line.
  return [[style.dim('plan: nothing was sent that changes the platform')], ...blocks, ...prune, ...health, [totals]].flatMap((block, index) => (index === 0 ? block : ['', ...block]));
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
