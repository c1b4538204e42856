import { h, uid } from './dom.js';

/**
 * A modal confirmation in a <dialog>: focus starts on Cancel, Escape cancels, and focus returns
 * to the button that opened it. Resolves true when confirmed.
 * `acknowledge`: text of a checkbox that must be ticked before the confirm button works.
 */
export function confirmDialog({ title, body, confirmLabel, danger = false, acknowledge }) {
  const titleId = uid('dlg-title');
  const bodyId = uid('dlg-body');
  const opener = document.activeElement;
  const ack = acknowledge ? h('input', { type: 'checkbox', id: uid('ack'), required: true, name: 'acknowledge' }) : null;
  const cancel = h('button', { type: 'submit', value: 'cancel', class: 'secondary', formnovalidate: true, autofocus: true }, 'Cancel');
  const confirm = h('button', { type: 'submit', value: 'confirm', class: danger ? 'danger' : undefined }, confirmLabel);
  const dialog = h(
    'dialog',
    { 'aria-labelledby': titleId, 'aria-describedby': bodyId },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: titleId }, title),
      h('div', { class: 'dialog-body', id: bodyId }, body),
      ack ? h('label', { class: 'check', for: ack.id }, ack, acknowledge) : null,
      h('div', { class: 'dialog-actions' }, cancel, confirm),
    ),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        const confirmed = dialog.returnValue === 'confirm';
        dialog.remove();
        if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
        resolve(confirmed);
      },
      { once: true },
    );
    dialog.showModal();
    cancel.focus();
  });
}
