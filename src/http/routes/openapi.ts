import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { fromRoot } from '../../paths.js';
import type { Operations } from '../operations.js';

// The spec is served as it is: public, like the documentation it is.
export function openapiRoutes(open: Operations): void {
  const spec = JSON.stringify(parse(readFileSync(fromRoot('spec/openapi.yaml'), 'utf8')));
  open.add('getOpenApi', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = spec;
  });
}
