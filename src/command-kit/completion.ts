/**
 * Shell completion, answered from the command tree itself so it is never out of date:
 * the scripts `dpgw completion bash|zsh|fish` prints call `dpgw __complete <words…>`
 * at each Tab, and this module answers with one candidate per line — subcommands,
 * options (the command's and the global ones), an option's choices, profile names
 * after --profile and `config use`, profile keys after `config set`/`unset`, health
 * components after `health`, the live catalog's data sources and data sets after
 * --datasource, --dataset and `catalog show`, the store's tables and schemas after `table get`,
 * `schema get` and their neighbours (catalog/catalog-names.ts). No candidates
 * means "a file name", which the shell completes.
 * Part of the start-up bundle: a Tab costs a start of dpgw, not of its handlers.
 */
import type { CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { HEALTH_COMPONENTS } from '../contract/constants.js';
import { PROFILE_KEYS } from '../settings/setting-definitions.js';
import { findDefinition, type ArgumentValues, type Definition } from './command-definition.js';

export const COMPLETE_COMMAND = '__complete';
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Candidates for the last word of `words` (the words after `dpgw`, the one being completed last, maybe empty). */
export async function completionCandidates(program: Command, definitions: readonly Definition[], words: readonly string[], profileNames: () => Promise<string[]>, catalogNames: (kind: 'data source' | 'data set' | 'offered data set' | 'table' | 'schema', profile: string | undefined, dataSource?: string) => Promise<string[]> = async () => []): Promise<string[]> {
  const partial = words[words.length - 1] ?? '';
  // `dpgw help <command…>` completes as the command itself does.
  const before = words.slice(0, -1).filter((word, index) => !(index === 0 && word === HELP_COMMAND));
  let command = program;
  let valueFor: Option | undefined;
  let positional = 0;
  for (const word of before) {
    if (valueFor) {
      valueFor = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = optionsOf(command).find((o) => o.long === word || o.short === word);
      // An option that takes a value takes the next word, unless given as --flag=value.
      if (option && (option.required || option.optional) && !word.includes('=')) valueFor = option;
      continue;
    }
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) {
      command = sub;
      positional = 0;
    } else positional++;
  }
  const matching = (candidates: readonly string[]) => candidates.filter((candidate) => candidate.startsWith(partial));
  // The live catalog's names (a short-lived cache, a bounded wait; nothing when offline or signed out).
  const profile = flagValue(before, '--profile');
  if (valueFor) {
    if (valueFor.long === '--profile') return matching(await profileNames());
    // `enable` names a data set a source offers; every other command one that is enabled. A --datasource
    // already on the line narrows them to that source's: `enable --datasource A --dataset B` needs B of A.
    if (valueFor.long === '--dataset') return matching(await catalogNames(pathOf(command) === 'enable' ? 'offered data set' : 'data set', profile, flagValue(before, '--datasource')));
    if (valueFor.long === '--datasource') return matching(await catalogNames('data source', profile));
    return matching(valueFor.argChoices ?? []);
  }
  if (partial.startsWith('-')) return matching([...new Set(optionsOf(command).flatMap((o) => (o.hidden || !o.long ? [] : [o.long])))].concat('--help'));
  // What a positional argument takes is in its command's definition (argumentValues); the rest is a file name.
  const argument = findDefinition(definitions, pathOf(command))?.argumentValues?.[positional];
  if (argument === 'profile') return matching(await profileNames());
  if (argument === 'profile key') return matching(PROFILE_KEYS);
  if (argument === 'health component') return matching(Object.keys(HEALTH_COMPONENTS));
  const live = liveNameKind(argument);
  if (live) return matching(await catalogNames(live, profile));
  const subcommands = command.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden && c.name() !== COMPLETE_COMMAND).map((c) => c.name());
  return matching(subcommands);
}

/** An argument whose names are the platform's (the catalog's data sets, the store's tables and schemas), asked live. */
function liveNameKind(argument: ArgumentValues | undefined): 'data set' | 'table' | 'schema' | undefined {
  return argument === 'data set' || argument === 'table' || argument === 'schema' ? argument : undefined;
}

/** The value a flag is given on the line, as `--flag value` or `--flag=value`; the last one when given twice, as commander takes it. */
function flagValue(words: readonly string[], flag: string): string | undefined {
  let value: string | undefined;
  words.forEach((word, index) => {
    if (word === flag && index + 1 < words.length) value = words[index + 1];
    else if (word.startsWith(`${flag}=`)) value = word.slice(flag.length + 1);
  });
  return value;
}

/** `dpgw help <command…>`: the command's help, as git and gh give it. */
export const HELP_COMMAND = 'help';

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/** The command's own options, then the global ones of every command above it. */
function optionsOf(command: Command): Option[] {
  const options: Option[] = [];
  for (let current: Command | null = command; current; current = current.parent) options.push(...current.options);
  return options;
}

/** The script that hooks dpgw into a shell's completion. */
export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return [
        '# dpgw completion for bash: eval "$(dpgw completion bash)" in ~/.bashrc',
        '_dpgw_complete() {',
        '  local IFS=$\'\\n\'',
        '  local candidates',
        '  candidates=$(dpgw __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0',
        '  COMPREPLY=($candidates)',
        '}',
        '# -o default: with no candidate (a file argument), bash completes file names.',
        'complete -o default -F _dpgw_complete dpgw',
        '',
      ].join('\n');
    case 'zsh':
      return [
        '#compdef dpgw',
        '# dpgw completion for zsh: eval "$(dpgw completion zsh)" in ~/.zshrc (after autoload -Uz compinit && compinit)',
        '_dpgw_complete() {',
        '  local -a candidates',
        '  candidates=("${(@f)$(dpgw __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")',
        '  candidates=(${candidates:#})',
        '  if (( ${#candidates} )); then compadd -- "${candidates[@]}"; else _files; fi',
        '}',
        'compdef _dpgw_complete dpgw',
        '',
      ].join('\n');
    case 'fish':
      return [
        '# dpgw completion for fish: mkdir -p ~/.config/fish/completions && dpgw completion fish > ~/.config/fish/completions/dpgw.fish',
        'function __dpgw_complete',
        '    set -l words (commandline -opc) (commandline -ct)',
        '    dpgw __complete $words[2..-1] 2>/dev/null',
        'end',
        "complete -c dpgw -a '(__dpgw_complete)'",
        '',
      ].join('\n');
  }
}
