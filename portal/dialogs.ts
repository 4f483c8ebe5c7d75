/**
 * What every dialog of the page (`<dialog>` opened with showModal) does for the keyboard:
 * - Tab and Shift+Tab go round the dialog's own controls: from the last back to the first and the
 *   other way (showModal makes the page behind inert, but a Tab past the last control would
 *   otherwise leave for the browser's own UI or the document);
 * - the dialog element itself is never a Tab stop (a scrolling dialog would be one);
 * - after a refused submit, the field focused is scrolled to with its label, below the dialog's
 *   title (which stays at the top of a scrolling dialog).
 */

/** The controls Tab reaches in `root`, in order (shown, enabled, not taken out with tabindex=-1). */
export function tabStops(root: HTMLElement): HTMLElement[] {
  const candidates = root.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]');
  return Array.from(candidates).filter(
    (node) => node.tabIndex >= 0 && !(node as HTMLButtonElement).disabled && node.getClientRects().length > 0 && node.closest('[hidden], [inert]') === null,
  );
}

/** Keeps Tab inside `dialog` while it is open (once per dialog, when the page starts). */
export function trapFocus(dialog: HTMLDialogElement) {
  dialog.tabIndex = -1;
  dialog.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab' || event.defaultPrevented) return;
    const stops = tabStops(dialog);
    if (stops.length === 0) {
      event.preventDefault();
      return;
    }
    const first = stops[0];
    const last = stops[stops.length - 1];
    const at = stops.indexOf(document.activeElement as HTMLElement);
    if (event.shiftKey && (at <= 0)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (at === -1 || at === stops.length - 1)) {
      event.preventDefault();
      first.focus();
    }
  });
}

/** The gap kept between the dialog's title and the label scrolled to, in px. */
const REVEAL_GAP_PX = 8;

/**
 * Focuses `field` (a refused one) and scrolls its dialog so that the field's label (or its
 * fieldset's legend) is just below the dialog's title, unless the label and the field are
 * already in view.
 */
export function focusField(field: HTMLElement) {
  field.focus({ preventScroll: true });
  const dialog = field.closest('dialog');
  if (dialog === null) {
    field.scrollIntoView({ block: 'nearest' });
    return;
  }
  const container = field.closest('.field') ?? field.parentElement;
  const label = (field.id ? dialog.querySelector<HTMLElement>(`label[for="${field.id}"]`) : null) ?? container?.querySelector<HTMLElement>('legend, label') ?? field;
  const fieldset = field.closest('fieldset');
  const top = fieldset?.querySelector('legend') ?? label;
  const title = dialog.querySelector<HTMLElement>('h2');
  const view = dialog.getBoundingClientRect();
  const below = title ? title.getBoundingClientRect().bottom + REVEAL_GAP_PX : view.top;
  const labelTop = top.getBoundingClientRect().top;
  const fieldBottom = field.getBoundingClientRect().bottom;
  if (labelTop >= below && fieldBottom <= view.bottom) return;
  dialog.scrollTop += labelTop - below;
}
