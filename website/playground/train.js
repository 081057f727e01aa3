// Training, live: the page's side of playground.py's show_training(). While the reader's loop runs in
// the worker, it reports every few steps; this draws the loss curve and the decision boundary over
// the points (SVG, built element by element: nothing from the worker is parsed as HTML), and says
// the same in words (a summary in an aria-live region, and each figure's text alternative).
// playground.js calls reset() when a run starts, progress() with each report, finish() with the
// run's last report, and stop() when the reader presses Stop.

const SVG = "http://www.w3.org/2000/svg";
// Okabe-Ito, as the course's plots: the classes differ in colour and in marker (circle, square)
const CLASS = { [-1]: { colour: "#D55E00", name: "class -1", shape: "circle" },
                [1]: { colour: "#0072B2", name: "class +1", shape: "square" } };
const SHADE = { 0: "#F6C9AE", 1: "#B3D7EC" };  // the course's light vermillion and light blue
const LOSS = { width: 360, height: 220, left: 46, right: 16, top: 12, bottom: 34 };
const BOUNDARY_WIDTH = 300;

let section = null;
let losses = [];  // [step, loss or null], every step so far
let last = null;  // the latest report
let state = "idle";  // "running", "done", "stopped"

function el(name, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function build() {
  section = document.createElement("section");
  section.id = "training";
  section.setAttribute("aria-labelledby", "training-title");
  const title = document.createElement("h2");
  title.id = "training-title";
  title.textContent = "Training";
  const summary = document.createElement("p");
  summary.id = "training-summary";
  summary.setAttribute("aria-live", "polite");
  const figures = document.createElement("div");
  figures.className = "training-figures";
  const figure = (id, caption) => {
    const f = document.createElement("figure");
    const svg = el("svg", { id, role: "img" });
    const c = document.createElement("figcaption");
    c.textContent = caption;
    f.append(svg, c);
    return f;
  };
  figures.append(
    figure("loss-curve", "The loss at each step (lower is better)."),
    figure("boundary", "Blue squares are class +1, vermillion circles class -1; the shading is the " +
      "side the model puts each place on (light blue: +1), and the black line is its boundary."),
  );
  section.append(title, summary, figures);
  const result = document.querySelector(".result");
  result.prepend(section);
}

// A report, checked: the worker runs the reader's code, which could post anything.
function checked(p) {
  const finite = (x) => typeof x === "number" && Number.isFinite(x);
  const grid = p && Number.isInteger(p.grid) && p.grid > 0 && p.grid <= 100 ? p.grid : 0;
  if (!grid || !Number.isInteger(p.step) || !finite(p.accuracy) || !Array.isArray(p.losses)
      || !Array.isArray(p.box) || p.box.length !== 4 || !p.box.every(finite)
      || p.box[1] <= p.box[0] || p.box[3] <= p.box[2]
      || typeof p.cells !== "string" || p.cells.length !== grid * grid || /[^01]/.test(p.cells)
      || !Array.isArray(p.points) || p.points.length > 5000) return null;
  const losses = p.losses.filter((l) => Array.isArray(l) && Number.isInteger(l[0]))
    .map(([step, loss]) => [step, finite(loss) ? loss : null]);
  const points = p.points.filter((q) => Array.isArray(q) && finite(q[0]) && finite(q[1]) && (q[2] === 1 || q[2] === -1));
  return { ...p, grid, losses, points };
}

export function reset() {
  losses = [];
  last = null;
  state = "idle";
  document.body.classList.remove("training");
  section?.remove();  // a new run's pictures start from nothing
  section = null;
}

export function progress(report) {
  const p = checked(report);
  if (!p || state === "stopped") return;
  if (!section) build();
  state = "running";
  document.body.classList.add("training");  // the graph's place is the training's (playground.css)
  losses.push(...p.losses);
  last = p;
  drawLoss();
  drawBoundary();
  say(`Step ${p.step}: ${lossText(p.step)}, ${percent(p.accuracy)} of the points on their side.`);
}

// The run's last report; returns the line for the page's status.
export function finish(report) {
  progress(report);
  if (!last) return "Done.";
  state = "done";
  const first = losses.find(([, l]) => l !== null);
  const line = `Done: ${losses.length} steps; loss ${first ? format(first[1]) : "not a number"} at step ` +
    `${first ? first[0] : 0}, ${lossText(last.step)} at the end; ${percent(last.accuracy)} of the points ` +
    "on their side.";
  say(line);
  return `Done: ${losses.length} training steps, drawn under Training.`;
}

// Stop pressed: returns the step a training run had reached (its pictures stay), or null.
export function stop() {
  if (state !== "running" || !last) return null;
  state = "stopped";
  say(`Stopped at step ${last.step}, as you asked: ${lossText(last.step)}, ${percent(last.accuracy)} ` +
    "of the points on their side. The pictures show that step.");
  return last.step;
}

function say(text) {
  section.querySelector("#training-summary").textContent = text;
}

const format = (x) => (Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(2) : x.toFixed(4));
const percent = (x) => `${Math.round(100 * x)}%`;

function lossText(step) {
  const found = losses.findLast(([s]) => s === step);
  return found && found[1] !== null ? `loss ${format(found[1])}` : "loss not a number (nan or inf: too large a step?)";
}

// A round number at least x: 1, 2 or 5 times a power of ten.
function nice(x) {
  const power = 10 ** Math.floor(Math.log10(x));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= x * (1 - 1e-9));
}

function drawLoss() {
  const svg = section.querySelector("#loss-curve");
  const { width, height, left, right, top, bottom } = LOSS;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const known = losses.filter(([, l]) => l !== null);
  const steps = nice(Math.max(10, ...losses.map(([s]) => s + 1)));
  const most = nice(Math.max(1e-9, ...known.map(([, l]) => l)));
  const x = (s) => left + (s / steps) * (width - left - right);
  const y = (l) => top + (1 - l / most) * (height - top - bottom);
  const parts = [el("rect", { width, height, fill: "#fff" })];
  for (const t of [0, 0.5, 1]) {  // the axes' ticks, with a faint grid line
    parts.push(el("line", { x1: left, x2: width - right, y1: y(t * most), y2: y(t * most), stroke: "#ccc" }));
    parts.push(el("text", { x: left - 5, y: y(t * most) + 4, "text-anchor": "end" }, String(+(t * most).toPrecision(3))));
    parts.push(el("text", { x: x(t * steps), y: height - bottom + 16, "text-anchor": "middle" }, String(t * steps)));
  }
  parts.push(el("text", { x: (left + width - right) / 2, y: height - 3, "text-anchor": "middle" }, "step"));
  parts.push(el("text", { x: 12, y: top + (height - top - bottom) / 2, "text-anchor": "middle",
    transform: `rotate(-90 12 ${top + (height - top - bottom) / 2})` }, "loss"));
  parts.push(el("path", { d: `M${left},${top}V${height - bottom}H${width - right}`, fill: "none", stroke: "#222" }));
  // the curve, broken where a loss was not a number
  let d = "";
  let pen = "M";
  for (const [s, l] of losses) {
    if (l === null) { pen = "M"; continue; }
    d += `${pen}${x(s).toFixed(1)},${y(l).toFixed(1)}`;
    pen = "L";
  }
  parts.push(el("path", { d, fill: "none", stroke: CLASS[1].colour, "stroke-width": 2, class: "loss-line" }));
  if (known.length) {  // the latest loss: a marker, so the curve's end is found without colour
    const [s, l] = known[known.length - 1];
    parts.push(el("circle", { cx: x(s), cy: y(l), r: 4, fill: CLASS[1].colour, stroke: "#000" }));
  }
  svg.replaceChildren(...parts);
  const low = known.length ? Math.min(...known.map(([, l]) => l)) : null;
  svg.setAttribute("aria-label", known.length
    ? `Loss curve: ${format(known[0][1])} at step ${known[0][0]}, ${format(known[known.length - 1][1])} at step ` +
      `${known[known.length - 1][0]}; lowest ${format(low)}.`
    : "Loss curve: no finite loss yet.");
  svg.dataset.steps = String(losses.length);
}

function drawBoundary() {
  const svg = section.querySelector("#boundary");
  const { grid, cells, box: [x0, x1, y0, y1], points } = last;
  const width = BOUNDARY_WIDTH;
  const height = Math.round((width * (y1 - y0)) / (x1 - x0));
  const cw = width / grid;
  const ch = height / grid;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const parts = [];
  for (let row = 0; row < grid; row++) {  // row 0 is the top (largest y)
    for (let col = 0; col < grid; col++) {
      parts.push(el("rect", { x: (col * cw).toFixed(2), y: (row * ch).toFixed(2), width: (cw + 0.5).toFixed(2),
        height: (ch + 0.5).toFixed(2), fill: SHADE[cells[row * grid + col]] }));
    }
  }
  // the boundary: a black segment wherever two neighbouring cells are on different sides
  let d = "";
  for (let row = 0; row < grid; row++) {
    for (let col = 0; col < grid; col++) {
      const here = cells[row * grid + col];
      if (col + 1 < grid && cells[row * grid + col + 1] !== here) d += `M${((col + 1) * cw).toFixed(1)},${(row * ch).toFixed(1)}v${ch.toFixed(1)}`;
      if (row + 1 < grid && cells[(row + 1) * grid + col] !== here) d += `M${(col * cw).toFixed(1)},${((row + 1) * ch).toFixed(1)}h${cw.toFixed(1)}`;
    }
  }
  parts.push(el("path", { d, fill: "none", stroke: "#000", "stroke-width": 2, class: "boundary-line" }));
  for (const [px, py, label] of points) {
    const cx = ((px - x0) / (x1 - x0)) * width;
    const cy = ((y1 - py) / (y1 - y0)) * height;
    const style = { fill: CLASS[label].colour, stroke: "#000", "stroke-width": 1, class: `point class${label > 0 ? "-plus" : "-minus"}` };
    parts.push(CLASS[label].shape === "circle"
      ? el("circle", { cx: cx.toFixed(1), cy: cy.toFixed(1), r: 4, ...style })
      : el("rect", { x: (cx - 3.5).toFixed(1), y: (cy - 3.5).toFixed(1), width: 7, height: 7, ...style }));
  }
  svg.replaceChildren(...parts);
  const plus = [...cells].filter((c) => c === "1").length / cells.length;
  const right = Math.round(last.accuracy * points.length);
  svg.setAttribute("aria-label", `Decision boundary after step ${last.step}: the model says class +1 in ` +
    `${percent(plus)} of the area (shaded light blue) and class -1 in the rest (light vermillion); ${right} of ` +
    `${points.length} points are on their own side.`);
  svg.dataset.step = String(last.step);
}
