// The playground's worker, started so that the page's Content-Security-Policy holds inside it.
// A worker loaded from a file of this site gets only the policy its server sends with that file
// (none, from `make serve` or most static hosts), so learner code could reach the network from it.
// A worker made from a blob: URL inherits the page's policy instead (connect-src 'self' among
// it): this one only imports no_network.js, then worker.js, from the site by their full address.
const here = new URL(".", import.meta.url);
const source = ["no_network.js", "worker.js"].map((f) => `import ${JSON.stringify(new URL(f, here).href)};`);
export const sealedWorkerURL = URL.createObjectURL(new Blob(source, { type: "text/javascript" }));
