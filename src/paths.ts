import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Code runs both from src/ (tsx, editors) and from dist/src/ (tsc output), so the project root
// is found by walking up to package.json rather than by a fixed number of '..'.
function findProjectRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

export function fromRoot(...parts: string[]): string {
  return join(projectRoot, ...parts);
}
