// The playground's Python: Pyodide in a module Web Worker, so that an endless loop can be
// stopped (the page terminates this worker) and never freezes the tab. It runs runner.py with
// the course's own modules beside it, all served from this site: nothing comes from elsewhere.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const here = new URL(".", import.meta.url);
// playground.py's show_training() reports through this while a run goes on, tagged with the run's id
let runId = null;
self.playgroundProgress = (json) => postMessage({ kind: "progress", id: runId, progress: JSON.parse(json) });

// js.close() in the reader's code would end this worker without a word (the page restarts a
// worker that stops answering, but a run that never ends looks the same as a long one)
const closed = () => { throw new Error("close() would end the playground's Python: not here"); };
for (let p = self; p; p = Object.getPrototypeOf(p)) if (Object.hasOwn(p, "close")) p.close = closed;

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
  if (event.data.kind === "ping") {  // after each run the page asks: is Python still usable?
    let ok = true;
    try { pyodide.runPython("1 + 1"); } catch { ok = false; }  // a fatal error leaves it unusable
    postMessage({ kind: "pong", ok });
    return;
  }
  const { id, code, overrides } = event.data;
  runId = id;
  let result;
  try {
    pyodide.globals.set("CODE", code);
    pyodide.globals.set("OVERRIDES", JSON.stringify(overrides || {}));
    // a fresh engine each run; nan and inf leave Python as null, never as invalid JSON
    result = JSON.parse(pyodide.runPython("json.dumps(runner.run_fresh(CODE, json.loads(OVERRIDES)), allow_nan=False)"));
  } catch (error) {  // a failure of the playground itself, not of the reader's code
    result = { error: `the playground failed: ${String(error).split("\n").slice(-2).join(" ")}` };
    if (String(error).includes("Maximum call stack size exceeded")) {  // a raised recursion limit
      result = { error: "RecursionError: the code called itself more deeply than the browser's stack allows"
                        + " (keep the recursion limit as it is, or use a loop)" };
    }
  }
  postMessage({ kind: "result", id, result });
};
