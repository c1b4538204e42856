import type { CollectionRow } from '../../memory/collections.js';

export function presentCollection(row: CollectionRow) {
  return { slug: row.slug, name: row.name, documents_count: row.documents_count };
}
