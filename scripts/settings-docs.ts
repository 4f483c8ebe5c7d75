/**
 * Rewrites the tables rendered from lambda/settings.ts: the settings table of
 * docs/configuration.md and the stack properties of docs/deploy.md.
 * Run after changing a setting: `npm run -s docs:settings`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSettingsTable, withStackPropertiesTable } from '../lambda/settings-docs';

for (const [file, render] of [
  ['configuration.md', withSettingsTable],
  ['deploy.md', withStackPropertiesTable],
] as const) {
  const target = join(__dirname, '..', 'docs', file);
  writeFileSync(target, render(readFileSync(target, 'utf8')));
  console.log(`wrote ${target}`);
}
