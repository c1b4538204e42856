import { expect } from 'chai';
import type { Catalog } from '../../src/gateway/catalog.js';
import { api, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { startStubProvider, type StubProvider } from '../helpers/stubProvider.js';
import { SERVICES, embeddingModel1024, loadTestCatalog } from '../helpers/catalog.js';

// What the memory tests share: creating collections and documents through the API, and waiting
// for an ingest to end the way a caller would (polling GET /memory/documents/{id}).

export async function createCollection(app: TestApp, key: string, name: string): Promise<string> {
  const response = await api(app.baseUrl, '/v1/recall/collections', { method: 'POST', key, body: { name } });
  expect(response.status, response.text).to.equal(201);
  return response.body.data.slug as string;
}

export async function ingest(
  app: TestApp,
  key: string,
  body: { title: string; text: string; collection: string; source?: string | null },
): Promise<string> {
  const response = await api(app.baseUrl, '/v1/memory/documents', { method: 'POST', key, body });
  expect(response.status, response.text).to.equal(201);
  return response.body.data.id as string;
}

/** Polls the document until it is ready or failed, and returns it. */
export async function settled(app: TestApp, key: string, id: string, timeoutMs = 20_000): Promise<any> {
  return waitFor(
    async () => {
      const response = await api(app.baseUrl, `/v1/memory/documents/${id}`, { key });
      expect(response.status, response.text).to.equal(200);
      const status = response.body.data.status as string;
      return status === 'ready' || status === 'failed' ? response.body.data : undefined;
    },
    { timeoutMs, intervalMs: 50, what: `document ${id} to be ready or failed` },
  );
}

// Prose in four languages, for texts of any length: paragraphs of real sentences, so that the
// chunker meets paragraph and sentence boundaries as it would in a real document.
const SENTENCES: Record<'nl' | 'en' | 'fr' | 'de', string[]> = {
  nl: [
    'De verzekeraar vergoedt de schade binnen dertig dagen nadat het dossier compleet is.',
    'U meldt een wijziging van uw adres altijd schriftelijk bij de klantenservice.',
    'De premie wordt jaarlijks aangepast aan het indexcijfer van de consumentenprijzen.',
    'Bij twijfel over de dekking neemt u contact op met uw tussenpersoon.',
    'Het eigen risico bedraagt tweehonderd euro per gebeurtenis.',
  ],
  en: [
    'The insurer settles the claim within thirty days once the file is complete.',
    'Always report a change of address in writing to customer service.',
    'The premium is adjusted every year to the consumer price index.',
    'If you are unsure about the cover, contact your broker.',
    'The excess is two hundred euros per event.',
  ],
  fr: [
    "L'assureur règle le sinistre dans les trente jours suivant la réception du dossier complet.",
    'Signalez toujours un changement d’adresse par écrit au service clientèle.',
    'La prime est adaptée chaque année à l’indice des prix à la consommation.',
    'En cas de doute sur la couverture, contactez votre courtier.',
    'La franchise s’élève à deux cents euros par sinistre.',
  ],
  de: [
    'Der Versicherer reguliert den Schaden innerhalb von dreißig Tagen nach Eingang der vollständigen Unterlagen.',
    'Melden Sie eine Adressänderung immer schriftlich beim Kundendienst.',
    'Die Prämie wird jährlich an den Verbraucherpreisindex angepasst.',
    'Bei Fragen zur Deckung wenden Sie sich an Ihren Makler.',
    'Die Selbstbeteiligung beträgt zweihundert Euro pro Schadenfall.',
  ],
};

/** Exactly `length` characters of prose in `language`, in paragraphs of 3–7 sentences. */
export function prose(length: number, language: keyof typeof SENTENCES = 'nl'): string {
  const sentences = SENTENCES[language];
  const paragraphs: string[] = [];
  let size = 0;
  for (let p = 0; size < length; p += 1) {
    const count = 3 + (p % 5);
    const paragraph = Array.from({ length: count }, (_, i) => `${sentences[(p + i) % sentences.length]!}`).join(' ');
    const numbered = `${p + 1}. ${paragraph}`;
    paragraphs.push(numbered);
    size += numbered.length + 2;
  }
  return paragraphs.join('\n\n').slice(0, length);
}

/**
 * A catalogue whose only memory embedding model is served by a stub provider on loopback, so a
 * test decides how long an ingest's embedding takes (a `hang` or a delayed answer in the stub's
 * script) without anything in the product knowing it is tested. `env` holds the key the catalogue
 * reads; a worker process also needs `CATALOG_FILE: file`.
 */
export async function startSlowEmbeddingCatalog(): Promise<{ stub: StubProvider; file: string; env: Record<string, string>; catalog: Catalog }> {
  const stub = await startStubProvider({ dimensions: 1024 });
  const yaml = `
providers:
  - {id: eu-embed, region: eu, kind: openai, base_url: "${stub.url}", api_key: "\${STUB_EMBED_KEY}", timeout_ms: 600000}
models:
${embeddingModel1024('stub/embed-1024', [['eu-embed', 'embed']])}
aliases: {}
${SERVICES}
`;
  const env = { STUB_EMBED_KEY: 'sk-stub-embed' };
  return { stub, env, ...loadTestCatalog(yaml, env) };
}
