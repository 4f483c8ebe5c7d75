/**
 * Asking before a change that takes something away (#confirm-dialog), naming what will happen.
 */
import { trapFocus } from './dialogs';
import { $ } from './dom';

/**
 * Resolves true when confirmed; Cancel or Escape: false. Focus starts on Cancel and returns to
 * `opener`.
 * @param action the confirming button's label, e.g. `Disable`
 */
export function confirmChange(title: string, text: string, action: string, opener: HTMLElement): Promise<boolean> {
  const dialog = $('confirm-dialog') as HTMLDialogElement;
  $('confirm-title').textContent = title;
  $('confirm-text').textContent = text;
  $('confirm-ok').textContent = action;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        opener.focus();
        resolve(dialog.returnValue === 'confirm');
      },
      { once: true },
    );
    dialog.showModal();
    $('confirm-cancel').focus();
  });
}

/** Wires the dialog's two buttons (once, when the page starts). */
export function initConfirm() {
  trapFocus($('confirm-dialog') as HTMLDialogElement);
  $('confirm-ok').addEventListener('click', () => ($('confirm-dialog') as HTMLDialogElement).close('confirm'));
  $('confirm-cancel').addEventListener('click', () => ($('confirm-dialog') as HTMLDialogElement).close('cancel'));
}
