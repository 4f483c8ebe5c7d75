/**
 * Rewrites the settings table of docs/configuration.md from lambda/settings.ts.
 * Run after changing a setting: `npm run -s docs:settings`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSettingsTable } from '../lambda/settings-docs';

const target = join(__dirname, '..', 'docs', 'configuration.md');
writeFileSync(target, withSettingsTable(readFileSync(target, 'utf8')));
console.log(`wrote ${target}`);
