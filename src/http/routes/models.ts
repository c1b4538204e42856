import { statSync } from 'node:fs';
import type { Catalog } from '../../gateway/catalog.js';
import { notFound } from '../../errors.js';
import type { Operations } from '../operations.js';
import { presentModel } from '../presenters/model.js';

export function modelRoutes(api: Operations, { catalog }: { catalog: Catalog }): void {
  // `created` is the catalogue's own date: models here are entries of that file.
  const created = Math.floor(statSync(catalog.file).mtimeMs / 1000);
  const list = {
    object: 'list',
    data: [...catalog.models.values()].map((m) => presentModel(m, catalog, created)),
    // Not models, so beside the list: SDKs that read `data` see only models.
    aliases: [...catalog.aliases].map(([id, models]) => ({ id, models })),
  };

  api.add('listModels', (ctx) => {
    ctx.body = list;
  });

  // Model ids contain a slash (vendor/model), so the path takes the two parts.
  api.add('getModel', (ctx) => {
    const model = catalog.models.get(`${ctx.params.vendor}/${ctx.params.name}`);
    if (!model) throw notFound(`no model ${ctx.params.vendor}/${ctx.params.name}`);
    ctx.body = presentModel(model, catalog, created);
  });

  // The OpenAI SDK's models.retrieve('eu-fast'), or another vendor's id ('gpt-4o'): what it is, said.
  api.add('getModelWithoutVendor', (ctx) => {
    const id = String(ctx.params.id);
    const chain = catalog.aliases.get(id);
    if (chain) throw notFound(`${id} is an alias, not a model: it names the chain ${chain.join(', ')}; GET /v1/models lists models, and aliases beside them`);
    throw notFound(`no model ${id}: model ids are vendor/name, such as ${catalog.models.keys().next().value}; GET /v1/models lists them`);
  });
}
