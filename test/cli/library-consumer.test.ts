/**
 * dpgw as a library user meets it: the packed package installed into an empty project, whose
 * TypeScript (strict, skipLibCheck off) compiles docs/library.md's example against the published
 * declarations, and whose run of it against the sandbox prints what the page says it prints.
 * Needs the built dist/ (`npm test` builds first); the install needs no registry.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { cleanEnv, ROOT } from '../helpers/run-dpgw.js';

/** The page's first fenced block of a language, as a reader copies it. */
function fencedBlock(markdown: string, language: string): string {
  const block = new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'm').exec(markdown)?.[1];
  if (block === undefined) throw new Error(`docs/library.md has no \`\`\`${language} block`);
  return block;
}

const page = readFileSync(join(ROOT, 'docs/library.md'), 'utf8');
let project: string;

beforeAll(() => {
  const work = mkdtempSync(join(tmpdir(), 'dpgw-library-'));
  const env = cleanEnv();
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--loglevel', 'error', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8', env })) as Array<{ filename: string }>;
  project = join(work, 'consumer');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // dpgw has no dependencies (every library is bundled): the tarball installs with no registry, from an empty cache.
  execFileSync('npm', ['install', '--offline', '--cache', join(work, 'npm-cache'), '--no-audit', '--no-fund', '--loglevel', 'error', join(work, packed[0]!.filename)], { cwd: project, env });
  // The project's own TypeScript and Node types, as its devDependencies would bring them: this repository's copies.
  mkdirSync(join(project, 'node_modules/@types'));
  symlinkSync(join(ROOT, 'node_modules/typescript'), join(project, 'node_modules/typescript'));
  symlinkSync(join(ROOT, 'node_modules/@types/node'), join(project, 'node_modules/@types/node'));
  writeFileSync(join(project, 'tsconfig.json'), fencedBlock(page, 'json'));
  writeFileSync(join(project, 'example.ts'), fencedBlock(page, 'ts'));
}, 60_000);

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file, ...args], { cwd: project, env: cleanEnv() }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

it("docs/library.md's example compiles against the installed declarations (strict, skipLibCheck off) and prints what the page shows", async () => {
  const compiled = await run(join(project, 'node_modules/typescript/bin/tsc'), ['-p', '.']);
  expect(compiled.stdout + compiled.stderr).toBe('');
  expect(compiled.code).toBe(0);
  const ran = await run(join(project, 'out/example.js'), []);
  expect(ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toBe(fencedBlock(page, 'text'));
}, 60_000);

it('the client\'s declarations alone (`dpgw`) compile without Node\'s types, as the page says', async () => {
  writeFileSync(join(project, 'client-only.ts'), "import { GatewayClient, type StoreRead } from 'dpgw';\nconst client = new GatewayClient({ baseUrl: 'https://gateway.example' });\nexport const read: Promise<StoreRead<unknown>> = client.getTable('track');\n");
  const options = { target: 'ES2022', module: 'nodenext', strict: true, skipLibCheck: false, noEmit: true, types: [], lib: ['ES2023'] };
  writeFileSync(join(project, 'tsconfig.client-only.json'), JSON.stringify({ compilerOptions: options, files: ['client-only.ts'] }));
  const compiled = await run(join(project, 'node_modules/typescript/bin/tsc'), ['-p', 'tsconfig.client-only.json']);
  expect(compiled.stdout + compiled.stderr).toBe('');
  expect(compiled.code).toBe(0);
}, 60_000);
