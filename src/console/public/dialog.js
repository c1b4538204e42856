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

/**
 * A modal form in a <dialog>. `submit()` runs on submit and may throw: its error is shown inside
 * the dialog, which stays open. Resolves with what submit returned, or null when cancelled
 * (Cancel or Escape). Focus returns to the button that opened it. `wide`: for forms with many fields.
 */
export function formDialog({ title, body, submitLabel, submit, errorBox, wide = false }) {
  const titleId = uid('dlg-title');
  const opener = document.activeElement;
  const feedback = h('div', { 'aria-live': 'polite' });
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const save = h('button', { type: 'submit' }, submitLabel);
  let result = null;
  const form = h(
    'form',
    {
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        feedback.replaceChildren();
        save.disabled = true;
        try {
          result = await submit();
          dialog.close();
        } catch (err) {
          const refusal = errorBox(err);
          feedback.append(refusal);
          save.disabled = false;
          // The refusal sits below the fields, out of a long dialog's visible area, and the Save
          // button took focus with it when it was disabled: bring both to the refusal.
          refusal.tabIndex = -1;
          refusal.focus({ preventScroll: true });
          refusal.scrollIntoView({ block: 'nearest' });
        }
      },
    },
    h('h2', { id: titleId }, title),
    h('div', { class: 'dialog-body' }, body),
    feedback,
    h('div', { class: 'dialog-actions' }, cancel, save),
  );
  const dialog = h('dialog', { 'aria-labelledby': titleId, class: wide ? 'wide' : undefined }, form);
  cancel.addEventListener('click', () => dialog.close());
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        dialog.remove();
        if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
        resolve(result);
      },
      { once: true },
    );
    dialog.showModal();
    form.querySelector('input, select, textarea')?.focus();
  });
}

/**
 * A secret shown once (a new key, a webhook's signing secret): a dialog with a copy button.
 * Closing it removes the secret from the page. Resolves when closed.
 */
export function secretDialog({ title, intro, label, secret: value }) {
  const titleId = uid('dlg-title');
  const opener = document.activeElement;
  const secret = h('input', { type: 'text', readonly: true, value, class: 'secret', spellcheck: 'false', autocomplete: 'off', id: uid('secret') });
  const copied = h('p', { class: 'muted small-text', role: 'status' });
  const copy = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async () => {
        secret.select();
        try {
          await navigator.clipboard.writeText(value);
          copied.textContent = 'Copied to the clipboard.';
        } catch {
          copied.textContent = 'The browser did not allow copying: the secret is selected, press Ctrl+C (⌘C).';
        }
      },
    },
    'Copy',
  );
  const done = h('button', { type: 'submit', value: 'done' }, 'Done');
  const dialog = h(
    'dialog',
    { 'aria-labelledby': titleId, class: 'secret-dialog' },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: titleId }, title),
      h('div', { class: 'dialog-body' }, h('p', null, intro), h('label', { for: secret.id }, label), h('div', { class: 'secret-row' }, secret, copy), copied),
      h('div', { class: 'dialog-actions' }, done),
    ),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        secret.value = '';
        dialog.remove();
        if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
        resolve();
      },
      { once: true },
    );
    dialog.showModal();
    secret.focus();
    secret.select();
  });
}
