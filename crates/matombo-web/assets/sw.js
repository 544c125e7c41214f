// The offline copy of the site: after one visit, the catalogue, the rules and the board
// (with its engine) load and play without the server. VERSION (a hash of every embedded
// file) and FILES (what to fetch at install, relative to this script) are written above
// this comment by the server or by `matombo site`.
//   files (versioned addresses, never changed): from the cache, else the network;
//   pages: the network first (so an online visit is always current), else the cached copy,
//   else the cached copy of the same page at another address (another ruleset or size):
//   the page's script adapts to the address it is shown at.
const CACHE = `matombo-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

// A new version deletes the caches of the old ones, then takes over open pages.
self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith('matombo-') && key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  const scope = new URL(self.registration.scope);
  if (req.method !== 'GET' || url.origin !== scope.origin) return;
  const path = url.pathname.slice(scope.pathname.length);
  // The JSON API and online play need the server: never answered from the cache.
  if (path.startsWith('api/') || path.startsWith('online') || path === 'sw.js') return;
  event.respondWith(req.mode === 'navigate' ? page(req, url) : file(req));
});

async function file(req) {
  const hit = await caches.match(req, { cacheName: CACHE });
  return hit || fetch(req);
}

async function page(req, url) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(req);
    if (response.ok && response.type === 'basic') await cache.put(req, response.clone());
    return response;
  } catch (offline) {
    const exact = await cache.match(req);
    if (exact) return exact;
    const lang = url.searchParams.get('lang');
    const same = (await cache.keys()).filter((k) => new URL(k.url).pathname === url.pathname);
    const pick = same.find((k) => new URL(k.url).searchParams.get('lang') === lang) || same[0];
    if (pick) return cache.match(pick);
    throw offline;
  }
}
