/**
 * The confirmation every change ends with: a toast in the corner (a polite live region, so screen
 * readers hear it too), with a Dismiss button, hiding by itself after a while unless the pointer
 * or the focus is on it. A confirmation replaces the one before it (the corner covers the right
 * end of the tables); errors stay until their time is up. At most a few are kept; the newest is last.
 */
import { $, el, icon } from './dom';

/** How long a toast stays, in ms, when nobody is reading it: a confirmation, and an error. */
export const TOAST_MS = { success: 5_000, error: 8_000 } as const;
const MAX_TOASTS = 3;

/**
 * Shows `message`.
 * @param kind `error` for a change that failed when there is no field to show it at
 * @returns the toast element
 */
export function toast(message: string, kind: 'success' | 'error' = 'success'): HTMLElement {
  const region = $('toasts');
  const text = el('p', { class: 'toast-text' }, [message]);
  const dismiss = el('button', { type: 'button', class: 'icon-button toast-dismiss', 'aria-label': 'Dismiss', title: 'Dismiss' }, [icon('close')]);
  const item = el('div', { class: `toast ${kind}` }, [text, dismiss]);
  let timer: number | undefined;
  // Where the keyboard was before it came to the toast: it goes back there when the toast goes.
  let cameFrom: HTMLElement | null = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
  const remove = () => {
    window.clearTimeout(timer);
    const hadFocus = item.contains(document.activeElement);
    item.remove();
    if (hadFocus) (cameFrom && cameFrom.isConnected && cameFrom.getClientRects().length > 0 ? cameFrom : $('main')).focus();
  };
  const arm = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(remove, TOAST_MS[kind]);
  };
  const hold = () => window.clearTimeout(timer);
  dismiss.addEventListener('click', remove);
  item.addEventListener('pointerenter', hold);
  item.addEventListener('pointerleave', arm);
  item.addEventListener('focusin', (event) => {
    const from = event.relatedTarget;
    if (from instanceof HTMLElement && !item.contains(from)) cameFrom = from;
    hold();
  });
  item.addEventListener('focusout', (event) => {
    if (!item.contains(event.relatedTarget as Node | null)) arm();
  });
  // The confirmation before this one goes, unless it is being read (pointer or focus on it).
  if (kind === 'success') for (const older of region.querySelectorAll('.toast.success')) if (!older.matches(':hover, :focus-within')) older.remove();
  region.append(item);
  while (region.children.length > MAX_TOASTS) region.firstElementChild?.remove();
  arm();
  return item;
}

/** Removes every toast (signing out). */
export function clearToasts() {
  $('toasts').replaceChildren();
}
