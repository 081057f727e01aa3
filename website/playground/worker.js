// The playground's Python: Pyodide in a module Web Worker, so that an endless loop can be
// stopped (the page terminates this worker) and never freezes the tab. It runs runner.py with
// the course's own modules beside it, all served from this site: nothing comes from elsewhere.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const here = new URL(".", import.meta.url);
// playground.py's show_training() reports through this while a run goes on, tagged with the run's id
let runId = null;
self.playgroundProgress = (json) => postMessage({ kind: "progress", id: runId, progress: JSON.parse(json) });

async function start() {
  const pyodide = await loadPyodide({ indexURL: new URL("../pyodide/", here).href });
  const files = await (await fetch(new URL("python/files.json", here))).json();
  for (const file of files) {
    const text = await (await fetch(new URL(`python/${file}`, here))).text();
    pyodide.FS.mkdirTree(`/course/${file.split("/").slice(0, -1).join("/")}`);
    pyodide.FS.writeFile(`/course/${file}`, text);
  }
  pyodide.runPython("import sys, json; sys.path.insert(0, '/course'); import runner");
  return pyodide;
}

const ready = start();
ready.then(
  () => postMessage({ kind: "ready" }),
  (error) => postMessage({ kind: "failed", error: String(error) }),
);

onmessage = async (event) => {
  const pyodide = await ready;
  const { id, code, overrides } = event.data;
  runId = id;
  pyodide.globals.set("CODE", code);
  pyodide.globals.set("OVERRIDES", JSON.stringify(overrides || {}));
  let result;
  try {
    result = JSON.parse(pyodide.runPython("json.dumps(runner.run(CODE, json.loads(OVERRIDES)))"));
  } catch (error) {  // a failure of the playground itself, not of the reader's code
    result = { error: `the playground failed: ${String(error).split("\n").slice(-2).join(" ")}` };
  }
  postMessage({ kind: "result", id, result });
};
