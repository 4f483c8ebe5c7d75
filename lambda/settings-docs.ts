/**
 * The tables of the documentation rendered from lambda/settings.ts: the settings table of
 * docs/configuration.md (every setting) and the stack properties table of docs/deploy.md (the
 * context settings, by prop). Each document holds its table between two markers;
 * `npm run -s docs:settings` rewrites them there and test/docs/docs.test.ts fails when one is stale.
 */
import { SETTING_ROWS, type Setting, formatSetting } from './settings';

export const SETTINGS_TABLE_START = '<!-- settings table: generated from lambda/settings.ts by `npm run -s docs:settings`; edit the table there -->';
export const SETTINGS_TABLE_END = '<!-- end of the settings table -->';
export const STACK_PROPERTIES_START = '<!-- stack properties: generated from lambda/settings.ts by `npm run -s docs:settings`; edit the table there -->';
export const STACK_PROPERTIES_END = '<!-- end of the stack properties -->';

type Row = Setting & { readonly key: string };

function defaultCell(row: Setting): string {
  if (row.default === undefined) return row.unset ?? 'none';
  return `\`${formatSetting(row, row.default)}\``;
}

function contextCell(row: Row): string {
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

/** A Duration prop's default as people read it: `15 min`, `60 s`, `90 days`. */
function durationText(value: number, unit: NonNullable<Setting['unit']>): string {
  if (unit === 'days') return `${value} days`;
  const ms = unit === 's' ? value * 1000 : value;
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function propertyCell(row: Row): string {
  if (row.prop === undefined) return `\`${row.key}\` (context only)`;
  return row.prop === row.key ? `\`${row.prop}\`` : `\`${row.prop}\` (\`${row.key}\`)`;
}

function stackDefaultCell(row: Setting): string {
  if (row.unit !== undefined && typeof row.default === 'number') return `${durationText(row.default, row.unit)} (\`${row.default}\`)`;
  return defaultCell(row);
}

/** The sentence as a table cell of its own: capitalised, with a full stop. */
function sentence(doc: string): string {
  const text = doc.charAt(0).toUpperCase() + doc.slice(1);
  return text.endsWith('.') ? text : `${text}.`;
}

/** The stack properties: one line per context setting, by its prop (a Duration's default in its unit). */
export function renderStackPropertiesTable(): string {
  const lines = ['| Property (`-c` key) | Default | What it does |', '|---|---|---|'];
  for (const row of SETTING_ROWS) if (row.context === true) lines.push(`| ${propertyCell(row)} | ${stackDefaultCell(row)} | ${sentence(row.doc)} |`);
  return lines.join('\n');
}

function between(document: string, start: string, end: string, table: string, where: string): string {
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${where} has lost its table markers`);
  return `${document.slice(0, from + start.length)}\n${table}\n${document.slice(to)}`;
}

/** `document` (docs/configuration.md) with the text between the markers replaced by the current table. */
export function withSettingsTable(document: string): string {
  return between(document, SETTINGS_TABLE_START, SETTINGS_TABLE_END, renderSettingsTable(), 'docs/configuration.md');
}

/** `document` (docs/deploy.md) with the stack properties between the markers replaced by the current table. */
export function withStackPropertiesTable(document: string): string {
  return between(document, STACK_PROPERTIES_START, STACK_PROPERTIES_END, renderStackPropertiesTable(), 'docs/deploy.md');
}
