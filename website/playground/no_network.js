// Learner code in the playground cannot reach another site: the page's Content-Security-Policy
// (connect-src 'self', which the worker keeps: sealed_worker.js) blocks every request elsewhere,
// however it is made. This file only makes the common ways fail at once with a sentence that
// says why (the browser's own failure is "TypeError: Failed to fetch" or a NetworkError).
// It stops nothing the policy would let through.
const blocked = (url) =>
  Object.assign(new Error(`the playground cannot reach ${url}: code here may use only this site, `
    + "never the network (the page's Content-Security-Policy allows only its own address)"),
    { name: "NetworkBlocked" });
const elsewhere = (url) => {
  try {
    return new URL(String(url instanceof Request ? url.url : url), location.href).origin !== self.origin;
  } catch {
    return false;  // not a URL: the browser's own error says so
  }
};
const fetchHere = self.fetch;
self.fetch = function fetch(resource, options) {
  if (elsewhere(resource)) throw blocked(resource instanceof Request ? resource.url : resource);
  return fetchHere.call(self, resource, options);
};
const open = XMLHttpRequest.prototype.open;
XMLHttpRequest.prototype.open = function (method, url, ...rest) {
  if (elsewhere(url)) throw blocked(url);
  return open.call(this, method, url, ...rest);
};
for (const name of ["WebSocket", "EventSource"]) {
  self[name] = class { constructor(url) { throw blocked(url); } };
}
