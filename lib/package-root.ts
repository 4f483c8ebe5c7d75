/** Where Signet's own files are, whether it runs from the repository or as an installed package. */
import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The nearest folder, from `start` upward, holding any of `names`, and which of them it holds. */
export function findUp(start: string, names: readonly string[]): { dir: string; names: string[] } {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const present = names.filter((name) => existsSync(path.join(dir, name)));
    if (present.length > 0 || path.dirname(dir) === dir) return { dir, names: present };
  }
}

/**
 * The folder holding Signet's package.json, where `lambda/` (the handlers' TypeScript) and `portal/`
 * are: the repository when the constructs run from source (`lib/`),
 * `node_modules/@signet-gateway/signet` when they run from the installed package (`dist/lib/`).
 */
export const PACKAGE_ROOT = findUp(__dirname, ['package.json']).dir;
