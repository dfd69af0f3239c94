/**
 * The manifest's JSON Schema as a file (issue #48 §4): the text shipped as docs/provision-manifest.schema.json,
 * printed by `dpgw manifest schema`, and copied beside every manifest `init` and `export` write, whose first line
 * points editors at that copy. One text for all three: the shipped file is this function's output (a test keeps them equal).
 *
 * Why a copy beside the manifest, not a path into the package: the line is committed with the manifest, and a path into
 * one person's global node_modules (or a clone of dpgw) resolves on no teammate's machine; dpgw has no versioned URL that
 * serves the schema. yaml-language-server resolves a relative `$schema=` from the YAML file's own folder (as Helm's
 * values.schema.json sits beside values.yaml), offline, for whoever cloned the repository.
 */
import { manifestJsonSchema } from './manifest.js';

/** The copy's name in the manifest's folder: the shipped file's own. */
export const MANIFEST_SCHEMA_FILE = 'provision-manifest.schema.json';

/** The first line of a manifest dpgw writes (without its `# `): editors with a YAML language server check the manifest against the copy beside it. */
export const EDITOR_SCHEMA_LINE = `yaml-language-server: $schema=./${MANIFEST_SCHEMA_FILE}`;

/** The JSON Schema's text, as shipped (two-space indents, a final line break). */
export function manifestSchemaText(): string {
  return `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`;
}
