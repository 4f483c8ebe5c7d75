/**
 * The page's small DOM helpers: finding elements, building them, inline field errors, the polite
 * announcer, and how errors and instants read. No state, no registry calls.
 */
import { RegistryError } from './registry-client';
import { SignetError } from './signet-core';

export const $ = (id: string) => document.getElementById(id) as HTMLElement;
export const input = (id: string) => document.getElementById(id) as HTMLInputElement;

export function el(tag: string, attributes: Record<string, string> = {}, content: Array<Node | string> = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...content);
  return node;
}

/** A button (type=button) with a text label, and an accessible name when the text alone is not one. */
export function button(label: string, options: { name?: string; className?: string; onClick?: (button: HTMLButtonElement) => void } = {}) {
  const node = el('button', { type: 'button', ...(options.className ? { class: options.className } : {}), ...(options.name ? { 'aria-label': options.name } : {}) }, [label]) as HTMLButtonElement;
  if (options.onClick) node.addEventListener('click', () => options.onClick?.(node));
  return node;
}

const ICONS = {
  copy: 'M8 8h11v13H8zM5 3h11v3H7v11H5z',
  edit: 'M4 17.5V21h3.5L18 10.5 14.5 7zM20.7 7.8a1 1 0 0 0 0-1.4l-3.1-3.1a1 1 0 0 0-1.4 0L14.9 4.6l4.5 4.5z',
  close: 'M6.4 5 5 6.4 10.6 12 5 17.6 6.4 19 12 13.4 17.6 19 19 17.6 13.4 12 19 6.4 17.6 5 12 10.6z',
} as const;

/** An icon (decorative: the button carries the label). */
export function icon(name: keyof typeof ICONS) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.setAttribute('class', 'icon');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', ICONS[name]);
  svg.append(path);
  return svg;
}

/** Says `message` to screen readers (the polite live region), for what is not a change. */
export function announce(message: string) {
  const announcer = $('announcer');
  announcer.textContent = '';
  window.setTimeout(() => (announcer.textContent = message), 50);
}

/**
 * Shows (or clears, with an empty message) the inline error of a field.
 */
export function showError(errorId: string, message: string, options: { code?: string; field?: HTMLElement | null } = {}) {
  const box = $(errorId);
  box.textContent = message;
  box.hidden = message === '';
  if (options.code) box.dataset.code = options.code;
  else delete box.dataset.code;
  if (options.field) {
    if (message === '') options.field.removeAttribute('aria-invalid');
    else options.field.setAttribute('aria-invalid', 'true');
  }
}

export function messageOf(error: unknown) {
  if (error instanceof RegistryError) return `${error.message} (${error.code}${error.requestId ? `, request ${error.requestId}` : ''})`;
  if (error instanceof SignetError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

export function codeOf(error: unknown) {
  return error instanceof RegistryError || error instanceof SignetError ? error.code : 'error';
}

/** `2026-06-01 12:00:00 UTC` (an unreadable value as it is). */
export function formatInstant(iso: string) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** `2026-06-01` (the day, UTC), for narrow columns; the full instant goes in a title. */
export function formatDay(iso: string) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 10);
}
