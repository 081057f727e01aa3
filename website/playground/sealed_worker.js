// The playground's worker, started so that the page's Content-Security-Policy holds inside it.
// A worker loaded from a file of this site gets only the policy its server sends with that file
// (none, from `make serve` or most static hosts), so learner code could reach the network from it.
// A worker made from a blob: URL inherits the page's policy instead (connect-src 'self' among
// it). This one imports no_network.js, then worker.js, from the site by their full address, as
// scripts (import(), which script-src 'self' allows), so the page can allow workers only from
// blob: URLs (worker-src blob:): learner code cannot start a worker from a file, which would not
// keep the policy.
const here = new URL(".", import.meta.url);
const url = (file) => JSON.stringify(new URL(file, here).href);
const source = `import(${url("no_network.js")}).then(() => import(${url("worker.js")}));`;
export const sealedWorkerURL = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
