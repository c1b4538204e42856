import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// What the QA rounds' test files assert of their samples, each text with a firewall of its own.

/** The text masked by a new firewall that detects its language. */
export const maskAuto = (text: string): string => createFirewall({ language: 'auto' }).mask(text);

/** Each text goes out as it is written: nothing in it is personal. */
export function expectUnchanged(texts: readonly string[]): void {
  for (const text of texts) expect(maskAuto(text), text).to.equal(text);
}

/** The text goes out as `masked`, and the reply `masked` comes back as the text. */
export function expectMasksAndRestores(text: string, masked: string): void {
  const fw = createFirewall({ language: 'auto' });
  expect(fw.mask(text), text).to.equal(masked);
  expect(fw.restore(masked), text).to.equal(text);
}
