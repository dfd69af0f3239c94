/**
 * How a command is defined in its folder (src/commands/<command>/): its usage, description,
 * example and flags — data the start-up bundle turns into the commander tree (cli/program.ts) —
 * and its handler, imported only when the command runs (cli/dispatch.ts).
 *
 * A definition names its handler by an import, and `defineCommand` checks the handler's
 * type against the flags the definition declares: a renamed flag, a missing handler or a
 * handler for another command's options is a type error, not a runtime one.
 *
 * Loaded by the start-up bundle: types and identity functions only, nothing of commander.
 */
import type * as Typed from '@commander-js/extra-typings';
import type { CommandContext, Handler } from './command-context.js';
import type { OptionKit } from './option-kit.js';

export type AnyCommand = Typed.CommandUnknownOpts;

/**
 * The global options every command's handler gets. The program declares them (cli/program.ts,
 * which checks at compile time that its declaration gives exactly this type); they are written
 * out here so that a command's definition needs nothing from the root that imports it.
 */
// A type, not an interface: commander's OptionValues wants the implicit index signature only a type alias has.
export type GlobalOptions = {
  json?: true | undefined;
  quiet?: true | undefined;
  verbose?: true | undefined;
  color: boolean;
  input: boolean;
  profile?: string | undefined;
};

/** The commander command a usage string declares (`push <file>`: one string argument), with the global options. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no options yet, written as @commander-js/extra-typings writes it
export type CommandFor<Usage extends string> = Typed.Command<[...Typed.InferCommandArguments<Usage>], {}, GlobalOptions>;

/** The handler of a declared command: its options (the global ones merged in) and arguments typed from the declaration. */
export type HandlerOf<Declared extends AnyCommand> = Handler<ReturnType<Declared['optsWithGlobals']>, Declared['processedArgs']>;

/** What a declared command's handler gets (for a handler's helpers). */
export type ContextOf<Declared extends AnyCommand> = CommandContext<ReturnType<Declared['optsWithGlobals']>, Declared['processedArgs']>;

/** What completes a positional argument at a Tab (completion.ts); otherwise the shell completes a file name. */
export type ArgumentValues = 'profile' | 'profile key' | 'health component' | 'data set' | 'table' | 'schema';

export interface CommandDefinition {
  readonly kind: 'command';
  /** The name and its arguments, as commander reads them: `push <file>`, `health [component]`. */
  readonly usage: string;
  readonly description: string;
  /** One command line a user would type; shown in the command's help and in `dpgw --help`. */
  readonly example: string;
  /** More help after the example (install steps, say). */
  readonly moreHelp?: string;
  readonly argumentValues?: readonly ArgumentValues[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each definition's own options type is checked by defineCommand
  readonly options?: (command: any, kit: OptionKit) => AnyCommand;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above: defineCommand ties the handler to the declared options
  readonly handler: () => Promise<Handler<any, any>>;
}

export interface GroupDefinition {
  readonly kind: 'group';
  readonly name: string;
  readonly description: string;
  readonly commands: readonly CommandDefinition[];
  /** The subcommand `dpgw <group>` alone runs (`dpgw config` shows the settings); else it asks for one. */
  readonly runWithout?: CommandDefinition;
}

export type Definition = CommandDefinition | GroupDefinition;

/**
 * A command: `options` declares its flags on the command its usage makes (the handler's
 * options type is the return type of that function, so export it for the handler:
 * `export type TableCreateCommand = ReturnType<typeof createOptions>`).
 */
export function defineCommand<const Usage extends string, Declared extends AnyCommand = CommandFor<Usage>>(definition: {
  usage: Usage;
  description: string;
  example: string;
  moreHelp?: string;
  argumentValues?: readonly ArgumentValues[];
  options?: (command: CommandFor<Usage>, kit: OptionKit) => Declared;
  handler: () => Promise<NoInfer<HandlerOf<Declared>>>;
}): CommandDefinition {
  return { kind: 'command', ...definition };
}

export function defineGroup(definition: Omit<GroupDefinition, 'kind'>): GroupDefinition {
  return { kind: 'group', ...definition };
}

/** A command's name: the first word of its usage. */
export function commandName(definition: CommandDefinition): string {
  return definition.usage.split(' ')[0]!;
}

/** The definition of a command path (`schema push`, `config`), as the registry lists it. */
export function findDefinition(definitions: readonly Definition[], path: string): CommandDefinition | undefined {
  for (const definition of definitions) {
    if (definition.kind === 'command') {
      if (commandName(definition) === path) return definition;
      continue;
    }
    if (path === definition.name) return definition.runWithout;
    const found = definition.commands.find((command) => `${definition.name} ${commandName(command)}` === path);
    if (found) return found;
  }
  return undefined;
}
