// Public API of the personal-data firewall (pure library: no HTTP, no database).
export { ENTITY_TYPES, LANGUAGES, isEntityType, isLanguage } from './types.js';
export type { Detection, EntityType, Language, Recognizer } from './types.js';
export { detectEntities, languageMatters, resolveOverlaps } from './detect.js';
export { detectLanguage, guessLanguage, type LanguageGuess } from './language.js';
export { createVault, formatPlaceholder, normalizeValue, Vault } from './vault.js';
export { maskJsonArguments, maskText, maskTextDetailed, type MaskResult } from './mask.js';
export {
  createStreamRestorer,
  restoreJsonArguments,
  restoreText,
  scanPlaceholder,
  type RestoreOptions,
  type StreamRestorer,
} from './restore.js';
export { createFirewall, warmUpFirewall, type Firewall, type FirewallOptions, type FirewallStats } from './firewall.js';
export { RECOGNIZERS } from './recognizers/index.js';
export { tableSpans, type TableSpan } from './structure.js';
export { preloadGazetteer } from './gazetteer/index.js';
