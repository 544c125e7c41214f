// Registers the service worker that keeps the site playable offline. It sits beside the
// manifest (the site's root), whatever the page's own address.
if ('serviceWorker' in navigator) {
  const manifest = document.querySelector('link[rel=manifest]');
  if (manifest) navigator.serviceWorker.register(new URL('sw.js', manifest.href)).catch(() => {});
}
