import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { fromRoot } from '../../paths.js';
import type { AppRouter } from '../state.js';

// The spec is served as it is: public, like the documentation it is.
export function openapiRoutes(router: AppRouter): void {
  const spec = JSON.stringify(parse(readFileSync(fromRoot('spec/openapi.yaml'), 'utf8')));
  router.get('/v1/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = spec;
  });
}
