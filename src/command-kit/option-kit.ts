/**
 * The flag makers a command definition declares its flags with (handed to its `options`),
 * so definitions import commander's types only and every flag is checked the same way as
 * commander reads it: names (src/names/platform-names.ts), seconds, whole numbers, ports.
 * A handler gets checked values, never a string to check again.
 */
import type * as Typed from '@commander-js/extra-typings';
import { Argument as CommanderArgument, InvalidArgumentError, Option as CommanderOption } from 'commander';
import { nameProblem, type NameKind } from '../names/platform-names.js';
import { SETTING_DEFINITIONS, type SettingKey, type SettingScope } from '../settings/setting-definitions.js';

/** commander's own classes, seen through @commander-js/extra-typings (types only: nothing more is loaded). */
const Option = CommanderOption as unknown as typeof Typed.Option;
const Argument = CommanderArgument as unknown as typeof Typed.Argument;

export const optionKit = {
  /** A flag with no checks of its own (choices, defaults and parsers chain on it). */
  option<Usage extends string>(flags: Usage, description: string) {
    return new Option(flags, description);
  },

  argument<Usage extends string>(name: Usage, description: string) {
    return new Argument(name, description);
  },

  /** A flag that names one thing on the platform, refused as commander reads it: nothing is sent with a bad name. */
  name<Usage extends string>(flags: Usage, description: string, kind: NameKind) {
    return new Option(flags, description).argParser((value: string) => checkedName(kind, value));
  },

  /** A flag that names several (`--group a --group b`, or `--group a b`). */
  names<Usage extends string>(flags: Usage, description: string, kind: NameKind) {
    return new Option(flags, description).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), checkedName(kind, value)]);
  },

  /** `KIND=FILE`, repeatable (`--report junit=report.xml`): each kind one of `kinds`. */
  keyedFiles<Kind extends string>(kinds: readonly Kind[]) {
    return (value: string, previous: Array<{ kind: Kind; file: string }> | undefined): Array<{ kind: Kind; file: string }> => {
      const equals = value.indexOf('=');
      const kind = value.slice(0, Math.max(0, equals));
      const file = value.slice(equals + 1);
      if (equals < 0 || !(kinds as readonly string[]).includes(kind) || file === '') throw new InvalidArgumentError(`${JSON.stringify(value)} is not ${kinds.map((k) => `${k}=FILE`).join(' or ')}`);
      return [...(previous ?? []), { kind: kind as Kind, file }];
    };
  },
  seconds,
  positiveSeconds,
  wholeNumber,
  port: (value: string): number => wholeNumber(0, 65_535, 'port number')(value),

  /** Some settings as flags of a command; read through resolveSettings, so their flags need no static type. */
  settings<C extends Typed.CommandUnknownOpts>(command: C, keys: readonly SettingKey[]): C {
    for (const definition of SETTING_DEFINITIONS) {
      if (keys.includes(definition.key) && definition.flag) command.addOption(new CommanderOption(definition.flag, `${definition.description} (env ${definition.env}; profile key ${definition.profileKey})`));
    }
    return command;
  },

  /** The settings of one scope (table: stream, retention, tenants, classes; access; query; dashboard) as flags of a command. */
  scopedSettings<C extends Typed.CommandUnknownOpts>(command: C, scope: SettingScope): C {
    return optionKit.settings(
      command,
      SETTING_DEFINITIONS.filter((d) => d.scope === scope).map((d) => d.key),
    );
  },
};

export type OptionKit = typeof optionKit;

function checkedName(kind: NameKind, value: string): string {
  const problem = nameProblem(kind, value);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return value;
}

function seconds(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a number of seconds (0 or more)`);
  return parsed;
}

function positiveSeconds(value: string): number {
  const parsed = seconds(value);
  if (parsed <= 0) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a number of seconds above 0`);
  return parsed;
}

function wholeNumber(min: number, max: number, what = 'whole number'): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || parsed < min || parsed > max) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a ${what} from ${min} to ${max}`);
    return parsed;
  };
}
