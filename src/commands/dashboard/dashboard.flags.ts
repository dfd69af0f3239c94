/** `dpgw dashboard`: the flags and the types they give its handler; dashboard.command.ts declares the command with them, and dashboard.handler.ts imports only their types (the definition imports the handler: apart, the two do not import each other). */
import type { CommandFor } from '../../command-kit/command-definition.js';
import type { OptionKit } from '../../command-kit/option-kit.js';

export const dashboardOptions = (command: CommandFor<'dashboard'>, kit: OptionKit) =>
  kit
    .scopedSettings(command, 'dashboard')
    .addOption(kit.name('--dataset <name>', 'the data set whose table is mapped (asked for at a terminal)', 'data set'))
    .addOption(kit.name('--table <name>', 'the table (default: the data set name)', 'table'))
    .option('--dashboard <title>', 'dashboard to save the chart to, found by title or created (default: the data set name)')
    .option('--chart <name>', 'chart name (default: "<table> positions")')
    .addOption(kit.option('--rows <n>', 'rows of the data set: SELECT * FROM default.<table> LIMIT <n>').argParser(kit.wholeNumber(1, 100_000, 'row count')).default(100));
export type DashboardCommand = ReturnType<typeof dashboardOptions>;
