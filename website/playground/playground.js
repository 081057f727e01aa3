// The playground page: a code box, a Run and a Stop button, the drawing, the backward pass step
// by step, the values and a slider per input. Python runs in worker.js; Graphviz (WebAssembly)
// draws here. Every file comes from this site.
import { Graphviz } from "../graphviz/index.js";
import { sealedWorkerURL } from "./sealed_worker.js";
import * as training from "./train.js";

const $ = (id) => document.getElementById(id);
const code = $("code");
let worker = null;
let running = null; // id of the run in progress
let lastId = 0;
let result = null;
let frame = null; // null: the drawing with the grads backward() left; k: step k of the pass
const overrides = {};
const graphviz = Graphviz.load();

function status(text) { $("status").textContent = text; }

function startWorker() {
  worker = new Worker(sealedWorkerURL);  // keeps the page's CSP: sealed_worker.js
  status("Starting Python…");
  $("run").disabled = true;
  worker.onmessage = ({ data }) => {
    if (data.kind === "ready") {
      $("run").disabled = false;
      status("Ready.");
    } else if (data.kind === "failed") {
      status(`Python did not start: ${data.error}`);
    } else if (data.kind === "result" && data.id === running) {
      finish(data.result);
    } else if (data.kind === "progress" && data.id === running) {
      training.progress(data.progress);
    }
  };
}

function run() {
  if ($("run").disabled) return;
  running = ++lastId;
  $("run").disabled = true;
  $("stop").disabled = false;
  status("Running…");
  training.reset();
  worker.postMessage({ id: running, code: code.value, overrides });
}

function stop() {
  if (running === null) return;
  worker.terminate();
  running = null;
  $("stop").disabled = true;
  const step = training.stop();  // the step a training run had reached, or null
  showError(step === null ? "Stopped: the code ran until you pressed Stop (an endless loop?). Python restarts."
    : `Stopped at step ${step}, as you asked: the training pictures show that step. Python restarts.`);
  startWorker();
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

async function finish(res) {
  running = null;
  $("run").disabled = false;
  $("stop").disabled = true;
  $("printed").textContent = res.printed || "";
  $("printed").hidden = !res.printed;
  showError(res.error || "");
  if (res.error) { status("Stopped at an error."); return; }
  if (res.training) { status(training.finish(res.training)); return; }  // drawn as it ran: no graph
  result = res;
  frame = null;
  status(`Done: the graph of ${res.root}.`);
  showLeaves(res.leaves);
  showValues(res.values);
  await draw();
}

async function draw() {
  const gv = await graphviz;
  const picture = $("picture");
  const steps = result.frames.length;
  const dot = frame === null ? result.dot : result.frames[frame].dot;
  picture.innerHTML = gv.dot(dot);
  picture.setAttribute("aria-label", frame === null ? result.summary : result.frames[frame].caption);
  $("caption").textContent = frame === null
    ? (steps ? `backward, step by step: ${steps - 1} steps; press Next` : "too many values to step through")
    : result.frames[frame].caption;
  $("prev").disabled = frame === null || frame === 0;
  $("next").disabled = !steps || frame === steps - 1;
}

function step(by) {
  if (!result || !result.frames.length) return;
  frame = frame === null ? 0 : Math.min(Math.max(frame + by, 0), result.frames.length - 1);
  draw();
}

function showValues(values) {
  const body = $("values").querySelector("tbody");
  body.replaceChildren(...values.map((v) => {
    const row = document.createElement("tr");
    for (const text of [v.label, v.data, v.grad]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    row.dataset.label = v.label;
    return row;
  }));
}

function showLeaves(leaves) {
  const box = $("leaves");
  box.replaceChildren(...leaves.map((leaf) => {
    const label = document.createElement("label");
    const slider = document.createElement("input");
    const number = document.createElement("input");
    const span = Math.max(2, Math.abs(leaf.data) * 2);
    Object.assign(slider, { type: "range", min: leaf.data - span, max: leaf.data + span, step: span / 100, value: leaf.data });
    Object.assign(number, { type: "number", step: "any", value: leaf.data });
    slider.setAttribute("aria-label", `${leaf.label} (slider)`);
    number.setAttribute("aria-label", leaf.label);
    const set = (value) => {
      if (!Number.isFinite(value)) return;
      overrides[leaf.label] = value;
      slider.value = value;
      number.value = value;
      run();
    };
    slider.addEventListener("change", () => set(Number(slider.value)));
    number.addEventListener("change", () => set(Number(number.value)));
    label.append(`${leaf.label} `, slider, number);
    return label;
  }));
}

function loadCode(text) {
  code.value = text;
  for (const key of Object.keys(overrides)) delete overrides[key];
}

async function examples() {
  const list = await (await fetch(new URL("examples.json", import.meta.url))).json();
  const select = $("examples");
  list.forEach((example, i) => select.append(new Option(example.title, i)));
  select.addEventListener("change", () => {
    if (select.value === "") return;
    loadCode(list[Number(select.value)].code);
    run();
  });
  return list;
}

if (location.protocol !== "file:") {  // from file:// the page's inline script shows a note
  const list = await examples();
  const shared = new URLSearchParams(location.hash.slice(1)).get("code");
  // Code from a link is shown, and runs only when the reader presses Run.
  loadCode(shared ?? list[0].code);
  startWorker();
  $("run").addEventListener("click", run);
  $("stop").addEventListener("click", stop);
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  code.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
  });
  $("share").addEventListener("click", (e) => {
    e.preventDefault();
    location.hash = new URLSearchParams({ code: code.value }).toString();
    navigator.clipboard?.writeText(location.href).catch(() => {});
    status("The address bar now holds a link to this code.");
  });
}
