import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Next } from 'koa';
import { fromRoot } from '../../paths.js';
import type { AppContext, AppRouter } from '../state.js';

// The web console: static files under src/console/public, served outside /v1 with no key (the
// page holds no data; every data call goes to the /v1 JSON APIs with the key the user signs in
// with). Only the files listed here are served, so no path from a request ever reaches the disk.
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
  'app.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'dom.js': 'text/javascript; charset=utf-8',
  'format.js': 'text/javascript; charset=utf-8',
  'dialog.js': 'text/javascript; charset=utf-8',
  'chart.js': 'text/javascript; charset=utf-8',
  'usage.js': 'text/javascript; charset=utf-8',
  'traces.js': 'text/javascript; charset=utf-8',
  'settings.js': 'text/javascript; charset=utf-8',
  'memory.js': 'text/javascript; charset=utf-8',
  'audit.js': 'text/javascript; charset=utf-8',
  'keys.js': 'text/javascript; charset=utf-8',
  'webhooks.js': 'text/javascript; charset=utf-8',
  'limits.js': 'text/javascript; charset=utf-8',
};

/** Scripts, styles and data only from this origin; no inline code, no framing, no plugins. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(FILES)) {
    const body = readFileSync(fromRoot('src/console/public', name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    assets.set(name, { body, type, etag });
  }
  return assets;
}

function securityHeaders(ctx: AppContext): void {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
}

function send(ctx: AppContext, asset: Asset): void {
  securityHeaders(ctx);
  // No build step means no hashed file names: the browser keeps a copy but asks every time (a
  // 304 is a few bytes), so a deploy is never half old, half new.
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('ETag', asset.etag);
  ctx.set('Vary', 'Accept-Encoding');
  if (ctx.get('if-none-match') === asset.etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = asset.type;
  ctx.body = asset.body;
}

export function consoleRoutes(router: AppRouter): void {
  // Read once: the files are small, and a missing one fails at start rather than on a visit.
  const assets = loadAssets();
  const shell = assets.get('index.html')!;

  const page = async (ctx: AppContext, _next: Next) => send(ctx, shell);
  router.get('/console', page);
  router.get('/console/', page);
  router.get('/console/:file', async (ctx, next) => {
    const asset = assets.get(ctx.params.file!);
    if (!asset) return next();
    send(ctx, asset);
  });
}
