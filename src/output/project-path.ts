/**
 * A file as a CI system names it (GitHub's annotations and step summary, GitLab's Code Quality
 * report): relative to the project's folder with forward slashes when it is inside it, else as
 * given. A relative file is the command's own, from the folder it ran in: a job that runs
 * `cd teams/shop && dpgw provision provision.yaml` names teams/shop/provision.yaml.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';

export function projectPath(file: string, projectDir: string | undefined, cwd: string): string {
  if (!projectDir) return file.split(sep).join('/');
  const inside = relative(resolve(projectDir), resolve(cwd, file));
  const outside = inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
  return (outside ? file : inside).split(sep).join('/');
}
