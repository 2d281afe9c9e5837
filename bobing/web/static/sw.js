// The service worker: the app shell and the static files, so a table reloads without a network.
// The server prepends `self.SHELL = {version, hashed}` (bobing/web/assets.py): the
// content-hashed files to keep, versioned by one hash over all of them. The page fetches every
// file by its hashed name (the import map), so the plain names are never precached: each file
// crosses the network once on a first visit.
//
// - hashed files (/js/dom.3f2a9c01d4.js) never change: cache first;
// - the page and the plain files (catalogues, manifest, icons): network first, the cache when
//   there is no network;
// - /api/ and /ws/ are never touched: live state comes from the server or not at all.
//
// A new version installs beside the old one and takes over at once, but it changes nothing in a
// page already running (its modules are loaded); the next load fetches the new page.

/* global SHELL */
const CACHE = `bobing-${SHELL.version}`;
const PAGE = "/";
const LIVE = ["/api/", "/ws/", "/docs", "/openapi.json", "/redoc"];

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // the files the page has loaded come from the HTTP cache: each file crosses the network once
      await cache.addAll(SHELL.hashed);
      await cache.add(PAGE);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("bobing-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

async function networkFirst(request, key) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) await cache.put(key, response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(key);
    if (cached) return cached;
    throw error;
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return;
  if (LIVE.some((prefix) => url.pathname.startsWith(prefix))) return;
  if (request.mode === "navigate") {
    // every client route is the same page: keep the latest one under "/"
    event.respondWith(networkFirst(request, PAGE));
  } else if (SHELL.hashed.includes(url.pathname)) {
    event.respondWith(cacheFirst(request));
  } else {
    event.respondWith(networkFirst(request, url.pathname));
  }
});
