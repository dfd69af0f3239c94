/** `dpgw access-control render|check`: the query-engine coordinator's access-control.properties (contract step 1). */
import { MB, readRegularFile } from '../../files/read-regular-file.js';
import type { HandlerOf } from '../../command-kit/command-definition.js';
import type { AccessControlRenderCommand, AccessControlCheckCommand } from './access-control.flags.js';
import { ACCESS_CONTROL_FILE_NAME } from '../../contract/constants.js';
import { DpgwError } from '../../errors/dpgw-error.js';
import { ExitCode } from '../../errors/exit-code.js';
import { checkAccessControl, renderAccessControl, type AccessControlProblem } from '../../query-access/access-control-file.js';
import { optionalUrl, requireUrl, requireWord } from '../../settings/setting-values.js';
import { checkOutputFile, writeOutputFile } from '../../files/atomic-write.js';
import { describeSource } from '../../settings/resolve-settings.js';
import { statSync } from 'node:fs';

export const render: HandlerOf<AccessControlRenderCommand> = async (context) => {
  const { options, reporter } = context;
  const settings = await context.settings();
  const policyEngine = requireWord(settings, 'policyEngine');
  const rendered = {
    policyEngine,
    policyUri: policyEngine === 'opa' ? requireUrl(settings, 'policyUri') : undefined,
    policyBatchedUri: policyEngine === 'opa' ? optionalUrl(settings, 'policyBatchedUri') : undefined,
  };
  if (policyEngine !== 'opa') reporter.warn(`dpgw knows no keys of policy engine "${policyEngine}": the file has the contract's two keys only; add the engine's own keys`);
  const text = renderAccessControl(rendered);
  // The file dpgw writes passes dpgw's own check, or it is not written.
  const checked = checkAccessControl(text, { policyEngine });
  const firstError = checked.problems.find((p) => p.severity === 'error');
  if (firstError) throw new DpgwError('ACCESS_CONTROL_INVALID', `the rendered file would not pass its check: ${firstError.message}`, { hint: firstError.hint });
  // And the coordinator reads back exactly the URLs given: no value ended its line early or continued into the next.
  if (checked.properties['opa.policy.uri'] !== rendered.policyUri && policyEngine === 'opa') throw new DpgwError('ACCESS_CONTROL_INVALID', 'the rendered file would not read back the policy URI as given', { where: '--policy-uri' });

  const output = options.output;
  // A link at the path is refused before its target is read or compared; --force replaces the link itself.
  if (output !== undefined) checkOutputFile(output, { where: '--output', force: options.force === true, existing: 'replace' });
  const existing = output === undefined ? undefined : existingText(output);
  const changed = existing !== text;
  // A file the coordinator may already use is not replaced by surprise; refused before anything else is said.
  if (existing !== undefined && changed && options.force !== true) throw new DpgwError('OUTPUT_EXISTS', `${output} exists and differs from the rendered file: not overwritten`, { where: '--output', hint: 'pass --force to replace it, or check it with `dpgw access-control check`' });

  // Flags, the environment and the profile mix in one file: say where each value came from, as `dpgw config` does.
  for (const [key, label] of [['policyEngine', 'policy engine'], ['policyUri', 'policy URI'], ['policyBatchedUri', 'batched policy URI']] as const) {
    const setting = settings.values[key];
    if (setting.value === undefined || (key !== 'policyEngine' && policyEngine !== 'opa')) continue;
    reporter.info(`${label} ${setting.value} ${reporter.err.dim(`(${setting.source.kind === 'default' ? 'default' : `from ${describeSource(setting.source)}`})`)}`);
  }
  // A --policy-uri given on the command line beside a profile's batched URI (or the other way round): said after where each came from.
  if (checked.problems.some((p) => p.splitEngines)) {
    reporter.warn('the policy URI and the batched policy URI are on different hosts: the coordinator would ask two policy engines — give both (--policy-uri and --policy-batched-uri) for one engine');
  }

  if (output !== undefined) {
    if (!changed) {
      reporter.success(`${output} unchanged: access decisions delegated to ${policyEngine}${rendered.policyUri ? ` at ${rendered.policyUri}` : ''}`);
    } else {
      await writeOutputFile(output, text, 0o644, { where: '--output', force: options.force === true });
      reporter.success(`wrote ${output}: access decisions delegated to ${policyEngine}${rendered.policyUri ? ` at ${rendered.policyUri}` : ''}`);
      reporter.next(`install it as the coordinator's ${ACCESS_CONTROL_FILE_NAME} (docs/query-access.md), then \`dpgw verify --dataset <name>\``);
    }
  }
  return {
    data: { file: output ?? null, changed: output === undefined ? null : changed, policyEngine, properties: checked.properties, text },
    // The file's text, as the properties writer serialized it and its reader read it back.
    human: () => (output === undefined ? text.trimEnd().split('\n') : []),
  };
};

export const check: HandlerOf<AccessControlCheckCommand> = async (context) => {
  const { reporter } = context;
  const [file] = context.args;
  const settings = await context.settings();
  const text = readRegularFile(file, {
    what: 'access-control file',
    maxBytes: MB,
    hint: `give the coordinator's ${ACCESS_CONTROL_FILE_NAME}, or write one with \`dpgw access-control render -o ${ACCESS_CONTROL_FILE_NAME}\``,
  });
  // The policy engine is compared only when the user chose one (flag, environment, profile), not with the default.
  const engineSetting = settings.values.policyEngine;
  const result = checkAccessControl(text, { policyEngine: engineSetting.source.kind === 'default' ? undefined : engineSetting.value });
  const located = result.problems.map((p) => ({ ...p, where: `${file}:${p.line}:${p.column}` }));
  const errors = located.filter((p) => p.severity === 'error');
  for (const problem of located) if (problem.severity === 'warning') reporter.warn(line(problem));
  if (errors.length > 0) {
    for (const problem of errors) reporter.problem(line(problem));
  } else {
    reporter.success(`${file}: fine-grained access control delegated to ${result.policyEngine}${result.properties['opa.policy.uri'] ? ` at ${result.properties['opa.policy.uri']}` : ''}`);
  }
  return {
    data: { file, ok: result.ok, policyEngine: result.policyEngine ?? null, properties: result.properties, problems: located },
    human: () => [],
    exitCode: result.ok ? ExitCode.Ok : ExitCode.Usage,
  };
};

/** The text of the file at `path`, or undefined when there is none. */
function existingText(path: string): string | undefined {
  try {
    statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return readRegularFile(path, { what: 'existing output file', maxBytes: MB, where: '--output', hint: 'choose another --output file' });
}

function line(problem: AccessControlProblem & { where: string }): string {
  return `${problem.where}: ${problem.message}${problem.hint ? ` — ${problem.hint}` : ''}`;
}

