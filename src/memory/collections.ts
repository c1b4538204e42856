import type { Queryable } from '../db/pool.js';

// Collections of a workspace. Every query is scoped by the workspace of the acting key.

export interface CollectionRow {
  id: string;
  slug: string;
  name: string;
  created_at: Date;
  documents_count: number;
}

interface Scope {
  organizationId: string;
  workspaceId: string;
}

/** Slugs are used in paths and in chat's `collection`, whose values are at most 255 characters. */
const MAX_SLUG = 255;
// Room left for a "-NNN" suffix when the base slug is taken.
const MAX_BASE = MAX_SLUG - 8;
const FALLBACK_SLUG = 'collection';

// Letters that NFKD does not decompose into a base letter plus marks.
const FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};

/** "Polissen & Voorwaarden 2024" → "polissen-voorwaarden-2024"; "Crème brûlée" → "creme-brulee". */
export function slugify(name: string): string {
  const folded = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[ßæœøłđðþı]/g, (c) => FOLDS[c] ?? c);
  const slug = folded
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_BASE)
    .replace(/-+$/, '');
  // A name of only symbols or of a script without a Latin form still needs a usable slug.
  return slug || FALLBACK_SLUG;
}

const COLUMNS = `c.id, c.slug, c.name, c.created_at,
       (select count(*)::int from documents d where d.collection_id = c.id) as documents_count`;

/**
 * Creates a collection under the slug of its name, or `-2`, `-3` … when that is taken. A
 * concurrent create of the same name loses the insert race on the unique key and takes the next.
 */
export async function createCollection(db: Queryable, scope: Scope, name: string): Promise<CollectionRow> {
  const base = slugify(name);
  for (;;) {
    const { rows: taken } = await db.query<{ slug: string }>(
      `select slug from collections
        where workspace_id = $1 and (slug = $2 or slug ~ ('^' || $2 || '-[0-9]+$'))`,
      [scope.workspaceId, base],
    );
    const used = new Set(taken.map((r) => r.slug));
    let slug = base;
    for (let n = 2; used.has(slug); n += 1) slug = `${base}-${n}`;
    const { rows } = await db.query<CollectionRow>(
      `insert into collections (organization_id, workspace_id, slug, name)
       values ($1, $2, $3, $4)
       on conflict (workspace_id, slug) do nothing
       returning id, slug, name, created_at, 0 as documents_count`,
      [scope.organizationId, scope.workspaceId, slug, name],
    );
    if (rows[0]) return rows[0];
  }
}

export async function listCollections(db: Queryable, workspaceId: string): Promise<CollectionRow[]> {
  const { rows } = await db.query<CollectionRow>(
    `select ${COLUMNS} from collections c where c.workspace_id = $1 order by c.created_at, c.slug`,
    [workspaceId],
  );
  return rows;
}

/** Deletes the collection; its documents and their chunks go with it (on delete cascade). */
/**
 * Deletes the collection (its documents and chunks go with it) and answers the ids of the
 * documents it held, or undefined when the workspace has no such collection. One statement: the
 * documents are read in its snapshot, before the cascade.
 */
export async function deleteCollection(db: Queryable, workspaceId: string, slug: string): Promise<string[] | undefined> {
  const { rows } = await db.query<{ document_ids: string[] }>(
    `with gone as (delete from collections where workspace_id = $1 and slug = $2 returning id)
     select array(select d.id from documents d where d.collection_id = g.id) as document_ids from gone g`,
    [workspaceId, slug],
  );
  return rows[0]?.document_ids;
}
