/**
 * Every command of dpgw, in the order `dpgw --help` lists them. Each lives in its own folder:
 * `<command>.command.ts` (usage, description, example, flags) and `<command>.handler.ts`
 * (the handler, imported only when the command runs). program.ts builds the commander tree
 * from this list; dispatch.ts finds the running command here and imports its handler.
 */
import type { Definition } from '../command-kit/command-definition.js';
import { accessControl } from './access-control/access-control.command.js';
import { auth } from './auth/auth.command.js';
import { catalog } from './catalog/catalog.command.js';
import { completion } from './completion/completion.command.js';
import { config } from './config/config.command.js';
import { dashboard } from './dashboard/dashboard.command.js';
import { enable } from './enable/enable.command.js';
import { exportCommand } from './export/export.command.js';
import { health } from './health/health.command.js';
import { init } from './init/init.command.js';
import { login } from './login/login.command.js';
import { logout } from './logout/logout.command.js';
import { manifest } from './manifest/manifest.command.js';
import { provision } from './provision/provision.command.js';
import { sandbox } from './sandbox/sandbox.command.js';
import { schema } from './schema/schema.command.js';
import { storage } from './storage/storage.command.js';
import { table } from './table/table.command.js';
import { verify } from './verify/verify.command.js';

export const COMMANDS: readonly Definition[] = [login, logout, auth, init, enable, schema, table, catalog, storage, health, accessControl, verify, dashboard, provision, exportCommand, manifest, sandbox, completion, config];
