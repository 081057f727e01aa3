// The playground page: a code box, a Run and a Stop button, the drawing, the backward pass step
// by step, the values and a slider per input. Python runs in worker.js; Graphviz (WebAssembly)
// draws here. Every file comes from this site.
import { Graphviz } from "../graphviz/index.js";
import { sealedWorkerURL } from "./sealed_worker.js";
import * as training from "./train.js";

const $ = (id) => document.getElementById(id);
const code = $("code");
const STORED = "micrograd-lesson playground code"; // the reader's code, kept in this browser
const PING_MS = 10000; // after a run, Python must answer within this (it takes ms) or it is restarted
let worker = null;
let ready = false;
let running = null; // id of the run in progress
let lastId = 0;
let again = false; // Run pressed (or a slider moved) during a run: run once more after it
let result = null;
let frame = null; // null: the drawing with the grads backward() left; k: step k of the pass
let overrides = {}; // {key: number} from the sliders, for the code they were made for
let sliders = null; // {code, keys}: the sliders shown, and the code they belong to
let zoom = null; // null: fit the drawing to the column; a number: that scale
const graphviz = Graphviz.load();

function status(text) { $("status").textContent = text; }

function startWorker(why = "") {
  worker = new Worker(sealedWorkerURL);  // keeps the page's CSP: sealed_worker.js
  ready = false;
  status(why ? `${why} Starting Python…` : "Starting Python…");
  worker.onmessage = ({ data }) => {
    if (data.kind === "ready") {
      ready = true;
      status("Ready.");
      if (again) { again = false; run(); }
    } else if (data.kind === "failed") {
      status(`Python did not start: ${data.error}`);
    } else if (data.kind === "result" && data.id === running) {
      finish(data.result);
    } else if (data.kind === "pong") {
      alive(data.ok);
    } else if (data.kind === "progress" && data.id === running) {
      training.progress(data.progress);
    }
  };
  worker.onerror = () => restart("Python stopped working");
}

// After each run the worker is asked whether Python still works: a fatal error (deep recursion
// with a raised limit) or a worker that ended itself would otherwise hang the next Run.
let pinged = null;
function ping() {
  clearTimeout(pinged);
  pinged = setTimeout(() => alive(false), PING_MS);
  worker.postMessage({ kind: "ping" });
}

function alive(ok) {
  clearTimeout(pinged);
  pinged = null;
  if (!ok) restart("Python stopped working in that run (a fatal error, such as recursion too deep)");
}

function restart(why) {
  worker.onmessage = worker.onerror = null;
  worker.terminate();
  running = null;
  clearTimeout(pinged);
  $("stop").disabled = true;
  showError(`${why}; it has been restarted, with your code kept: press Run to run it again.`);
  startWorker("Python restarted.");
}

function run() {
  if (running !== null || !ready) { // once more when this run ends, or when Python is up
    if (running === null) training.reset(); // a run is coming: the last run's pictures go now
    again = true;
    return;
  }
  running = ++lastId;
  $("run").setAttribute("aria-busy", "true");
  $("stop").disabled = false;
  status("Running…");
  showError(""); // an error shown belongs to the run before
  training.reset();
  const mine = sliders && sliders.code === code.value; // sliders made for other code do nothing
  worker.postMessage({ id: running, code: code.value, overrides: mine ? overrides : {} });
}

function stop() {
  if (running === null) return;
  const focused = document.activeElement === $("stop");
  worker.onmessage = worker.onerror = null;
  worker.terminate();
  running = null;
  again = false;
  $("stop").disabled = true;
  $("run").removeAttribute("aria-busy");
  if (focused) $("run").focus(); // a disabled button would drop the focus to the page
  const step = training.stop();  // the step a training run had reached, or null
  showError(step === null ? "Stopped: the code ran until you pressed Stop (an endless loop?). Python restarts."
    : `Stopped at step ${step}, as you asked: the training pictures show that step. Python restarts.`);
  startWorker();
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

function showPrinted(text) {
  $("printed").textContent = text || "";
  $("printed").hidden = !text;
}

async function finish(res) {
  running = null;
  $("run").removeAttribute("aria-busy");
  if (document.activeElement === $("stop")) $("run").focus();
  $("stop").disabled = true;
  ping();
  showPrinted(res.printed);
  showError(res.error || "");
  if (again) { again = false; run(); return; } // the reader already asked for another run
  if (res.error) {
    // nothing on the page may look like this code's result: the graph, table and sliders go
    status("Stopped at an error: nothing to draw.");
    clearResult("No graph: the code stopped at an error.");
    return;
  }
  if (res.training) { status(training.finish(res.training)); return; }  // drawn as it ran: no graph
  result = res;
  frame = null;
  status(`Done: the graph of ${res.root}.${res.note ? " " + res.note : ""}`);
  showLeaves(res.leaves);
  showValues(res.values, res.more_rows);
  await draw();
}

function clearResult(why) {
  result = null;
  frame = null;
  $("picture").replaceChildren();
  $("picture").setAttribute("aria-label", why);
  $("too-big").hidden = true;
  $("viewport").hidden = $("zoom").hidden = false;
  $("caption").textContent = "";
  $("prev").disabled = $("next").disabled = true;
  $("values").querySelector("tbody").replaceChildren();
  dropSliders();
}

function dropSliders() {
  $("leaves").replaceChildren();
  $("leaves").hidden = true;
  sliders = null;
  overrides = {};
}

async function draw() {
  const picture = $("picture");
  const steps = result.frames.length;
  $("too-big").textContent = result.too_big;
  $("too-big").hidden = !result.too_big;
  $("viewport").hidden = $("zoom").hidden = !result.dot; // no empty box with buttons that do nothing
  if (!result.dot) {
    picture.replaceChildren();
    picture.setAttribute("aria-label", result.too_big);
    $("caption").textContent = "";
    $("prev").disabled = $("next").disabled = true;
    return;
  }
  const gv = await graphviz;
  const dot = frame === null ? result.dot : result.frames[frame].dot;
  picture.innerHTML = gv.dot(dot);
  picture.setAttribute("aria-label", frame === null ? result.summary : result.frames[frame].caption);
  $("caption").textContent = frame === null
    ? (steps ? `backward, step by step: ${steps - 1} steps; press Next` : "too many values to step through")
    : result.frames[frame].caption;
  $("prev").disabled = frame === null || frame === 0;
  $("next").disabled = !steps || frame === steps - 1;
  applyZoom();
}

function step(by) {
  if (!result || !result.frames.length) return;
  frame = frame === null ? 0 : Math.min(Math.max(frame + by, 0), result.frames.length - 1);
  draw();
}

// ---- zoom and pan: the drawing at a scale the reader picks, in a box that scrolls ----
const MIN_FIT = 0.6; // fitting never shrinks text below this scale: past it the box scrolls
const ZOOMS = [0.1, 4];

function natural(svg) { // the drawing's own size in CSS px (Graphviz writes it in pt)
  return [parseFloat(svg.getAttribute("width")) * 4 / 3, parseFloat(svg.getAttribute("height")) * 4 / 3];
}

function fitScale(svg) {
  const [w, h] = natural(svg);
  const box = $("viewport");
  const height = Math.min(470, window.innerHeight * 0.7);
  return Math.max(MIN_FIT, Math.min(1, (box.clientWidth - 4) / w, height / h));
}

function scale() {
  const svg = $("picture").querySelector("svg");
  return svg ? (zoom ?? fitScale(svg)) : 1;
}

function applyZoom() {
  const svg = $("picture").querySelector("svg");
  $("zoom-level").textContent = zoom === null ? "fit" : `${Math.round(zoom * 100)}%`;
  if (!svg) return;
  const [w, h] = natural(svg);
  const s = scale();
  svg.style.width = `${w * s}px`;
  svg.style.height = `${h * s}px`;
}

function zoomBy(factor, at) {
  const box = $("viewport");
  const svg = $("picture").querySelector("svg");
  if (!svg) return;
  const before = scale();
  const after = Math.min(Math.max(before * factor, ZOOMS[0]), ZOOMS[1]);
  // keep the point of the drawing under the pointer (or the middle of the box) where it is
  const [x, y] = at ?? [box.clientWidth / 2, box.clientHeight / 2];
  const origin = () => { // where the drawing starts in the box's scrolled content
    const b = box.getBoundingClientRect(), s = svg.getBoundingClientRect();
    return [s.left - b.left + box.scrollLeft, s.top - b.top + box.scrollTop];
  };
  const [ox, oy] = origin();
  const [px, py] = [(box.scrollLeft + x - ox) / before, (box.scrollTop + y - oy) / before];
  zoom = after;
  applyZoom();
  const [nx, ny] = origin();
  box.scrollLeft = nx + px * after - x;
  box.scrollTop = ny + py * after - y;
}

function fit() { zoom = null; applyZoom(); }

function zoomAndPan() {
  const box = $("viewport");
  $("zoom-in").addEventListener("click", () => zoomBy(1.25));
  $("zoom-out").addEventListener("click", () => zoomBy(0.8));
  $("zoom-fit").addEventListener("click", fit);
  box.addEventListener("wheel", (e) => { // Ctrl+wheel, and a touchpad's pinch, zoom; a wheel pans
    if (!e.ctrlKey) return;
    e.preventDefault();
    const r = box.getBoundingClientRect();
    zoomBy(Math.exp(-e.deltaY / 300), [e.clientX - r.left, e.clientY - r.top]);
  }, { passive: false });
  box.addEventListener("keydown", (e) => { // arrows scroll the focused box by themselves
    const by = { "+": 1.25, "=": 1.25, "-": 0.8, "_": 0.8 }[e.key];
    if (by) { e.preventDefault(); zoomBy(by); } else if (e.key === "0") { e.preventDefault(); fit(); }
  });
  // a finger or the mouse drags the drawing; two fingers pinch it
  const pointers = new Map();
  let spread = null;
  box.addEventListener("pointerdown", (e) => {
    pointers.set(e.pointerId, [e.clientX, e.clientY]);
    if (pointers.size === 2) spread = distance();
  });
  box.addEventListener("pointermove", (e) => {
    const last = pointers.get(e.pointerId);
    if (!last) return;
    pointers.set(e.pointerId, [e.clientX, e.clientY]);
    if (pointers.size === 2) {
      const now = distance();
      const [[x1, y1], [x2, y2]] = [...pointers.values()];
      const r = box.getBoundingClientRect(); // zoom about the point between the fingers
      if (spread && now) zoomBy(now / spread, [(x1 + x2) / 2 - r.left, (y1 + y2) / 2 - r.top]);
      spread = now;
    } else if (pointers.size === 1 && e.buttons) {
      box.scrollLeft -= e.clientX - last[0];
      box.scrollTop -= e.clientY - last[1];
    }
  });
  const up = (e) => { pointers.delete(e.pointerId); spread = null; };
  for (const kind of ["pointerup", "pointercancel", "pointerleave"]) box.addEventListener(kind, up);
  function distance() {
    const [[x1, y1], [x2, y2]] = [...pointers.values()];
    return Math.hypot(x2 - x1, y2 - y1);
  }
  window.addEventListener("resize", () => { if (zoom === null) applyZoom(); });
}

function showValues(values, more) {
  const body = $("values").querySelector("tbody");
  const rows = values.map((v) => {
    const row = document.createElement("tr");
    for (const text of [v.label, v.data, v.grad]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    row.dataset.label = v.label;
    return row;
  });
  if (more) {
    const row = document.createElement("tr");
    const cell = document.createElement("td");
    cell.colSpan = 3;
    cell.textContent = `… ${more.toLocaleString("en")} more labelled values`;
    row.append(cell);
    rows.push(row);
  }
  body.replaceChildren(...rows);
}

// A slider and a number box per labelled input the code made with Value(...). They belong to
// this code: editing it or loading other code drops them. When a run gives the same inputs the
// boxes stay (only their values change), so the focus stays on the one being moved.
function showLeaves(leaves) {
  const box = $("leaves");
  const keys = leaves.map((l) => `${l.key}:${l.label}`).join("|");
  if (sliders && sliders.code === code.value && sliders.keys === keys) {
    for (const leaf of leaves) {
      for (const input of box.querySelectorAll(`[data-key="${leaf.key}"]`)) {
        if (leaf.data !== null && document.activeElement !== input) input.value = leaf.data;
      }
    }
    return;
  }
  sliders = { code: code.value, keys };
  for (const key of Object.keys(overrides)) if (!leaves.some((l) => l.key === key)) delete overrides[key];
  box.hidden = !leaves.length;
  box.replaceChildren(...(leaves.length ? [heading()] : []), ...leaves.map(leafInputs));
}

function heading() {
  const h = document.createElement("h2");
  h.textContent = "Inputs";
  return h;
}

function leafInputs(leaf) {
  const label = document.createElement("label");
  if (leaf.data === null) { // nan or infinite: nothing to slide between
    label.append(`${leaf.label} = ${leaf.shown} (not a finite number: change it in the code)`);
    return label;
  }
  const number = document.createElement("input");
  Object.assign(number, { type: "number", step: "any", value: leaf.data });
  number.setAttribute("aria-label", leaf.label);
  number.dataset.key = leaf.key;
  const set = (value) => {
    if (!Number.isFinite(value)) return;
    overrides[leaf.key] = value;
    for (const input of label.querySelectorAll("input")) input.value = value;
    run();
  };
  number.addEventListener("change", () => set(Number(number.value)));
  label.append(`${leaf.label} `);
  // a slider spans the value +- twice its size (at least +-2); past 1e12 only the box is offered
  if (Math.abs(leaf.data) <= 1e12) {
    const slider = document.createElement("input");
    const span = Math.max(2, Math.abs(leaf.data) * 2);
    Object.assign(slider, { type: "range", min: leaf.data - span, max: leaf.data + span, step: span / 100,
                            value: leaf.data });
    slider.setAttribute("aria-label", `${leaf.label} (slider)`);
    slider.dataset.key = leaf.key;
    slider.addEventListener("change", () => set(Number(slider.value)));
    label.append(slider);
  }
  label.append(number);
  return label;
}

// ---- the code: from a link, from this browser's storage, or the first example ----
function loadCode(text) {
  code.value = text;
  dropSliders();
  keep();
}

function keep() {
  try { localStorage.setItem(STORED, code.value); } catch { /* storage off: nothing kept */ }
  // a link's code that the reader has since edited would come back on reload: drop the link
  const linked = new URLSearchParams(location.hash.slice(1)).get("code");
  if (linked !== null && linked !== code.value) history.replaceState(null, "", location.pathname + location.search);
}

function stored() {
  try { return localStorage.getItem(STORED); } catch { return null; }
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

function fromLink() {
  const shared = new URLSearchParams(location.hash.slice(1)).get("code");
  if (shared === null || shared === code.value) return;
  loadCode(shared);
  clearResult("The graph appears here after Run.");
  showError("");
  showPrinted("");
  status("The code from the link is in the box: press Run to run it.");
}

if (location.protocol !== "file:") {  // from file:// the page's inline script shows a note
  const list = await examples();
  const shared = new URLSearchParams(location.hash.slice(1)).get("code");
  const kept = stored();
  // Code from a link is shown, and runs only when the reader presses Run; else the reader's own
  // code from the last visit; else the first example.
  loadCode(shared ?? kept ?? list[0].code);
  startWorker();
  $("run").disabled = false; // from here on a Run during a run (or before Python is ready) waits
  zoomAndPan();
  $("run").addEventListener("click", run);
  $("stop").addEventListener("click", stop);
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  code.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
  });
  code.addEventListener("input", () => { dropSliders(); keep(); });
  window.addEventListener("hashchange", fromLink);
  $("share").addEventListener("click", (e) => {
    e.preventDefault();
    history.replaceState(null, "", "#" + new URLSearchParams({ code: code.value }).toString());
    navigator.clipboard?.writeText(location.href).catch(() => {});
    status("The address bar now holds a link to this code.");
  });
}
