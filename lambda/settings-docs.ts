/**
 * The settings table of docs/configuration.md, rendered from lambda/settings.ts. The document
 * holds it between two markers; `npm run -s docs:settings` rewrites it there and
 * test/docs/docs.test.ts fails when it is stale.
 */
import { SETTING_ROWS, type Setting, formatSetting } from './settings';

export const SETTINGS_TABLE_START = '<!-- settings table: generated from lambda/settings.ts by `npm run -s docs:settings`; edit the table there -->';
export const SETTINGS_TABLE_END = '<!-- end of the settings table -->';

function defaultCell(row: Setting): string {
  if (row.default === undefined) return row.unset ?? 'none';
  return `\`${formatSetting(row, row.default)}\``;
}

function contextCell(row: Setting & { readonly key: string }): string {
  if (row.context !== true) return row.prop === undefined ? '—' : `— (prop \`${row.prop}\`)`;
  return row.prop === undefined || row.prop === row.key ? `\`${row.key}\`` : `\`${row.key}\` (prop \`${row.prop}\`)`;
}

/** The Markdown table: one line per setting, in the table's order. */
export function renderSettingsTable(): string {
  const lines = ['| Variable | `-c` key | Default | Meaning |', '|---|---|---|---|'];
  for (const row of SETTING_ROWS) {
    lines.push(`| ${row.env === undefined ? '— (deploy only)' : `\`${row.env}\``} | ${contextCell(row)} | ${defaultCell(row)} | ${row.doc} |`);
  }
  return lines.join('\n');
}

/** `document` with the text between the markers replaced by the current table. */
export function withSettingsTable(document: string): string {
  const start = document.indexOf(SETTINGS_TABLE_START);
  const end = document.indexOf(SETTINGS_TABLE_END);
  if (start < 0 || end < start) throw new Error('docs/configuration.md has lost the settings table markers');
  return `${document.slice(0, start + SETTINGS_TABLE_START.length)}\n${renderSettingsTable()}\n${document.slice(end)}`;
}
