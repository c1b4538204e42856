import { statSync } from 'node:fs';
import type { Catalog } from '../../gateway/catalog.js';
import { notFound } from '../../errors.js';
import { presentModel } from '../presenters/model.js';
import type { AppRouter } from '../state.js';

export function modelRoutes(router: AppRouter, { catalog }: { catalog: Catalog }): void {
  // `created` is the catalogue's own date: models here are entries of that file.
  const created = Math.floor(statSync(catalog.file).mtimeMs / 1000);
  const list = { object: 'list', data: [...catalog.models.values()].map((m) => presentModel(m, catalog, created)) };

  router.get('/models', (ctx) => {
    ctx.body = list;
  });

  // Model ids contain a slash (vendor/model), so the route takes the rest of the path.
  router.get('/models/:vendor/:name', (ctx) => {
    const model = catalog.models.get(`${ctx.params.vendor}/${ctx.params.name}`);
    if (!model) throw notFound(`no model ${ctx.params.vendor}/${ctx.params.name}`);
    ctx.body = presentModel(model, catalog, created);
  });
}
