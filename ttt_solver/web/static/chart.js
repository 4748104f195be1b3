// The value history: each position so far from X's view, with remoteness (as GamesmanUni's
// visual value history): X's wins above the middle line, O's below, draws on it, and the
// nearer the end of the game, the farther from the middle. A ring marks each move that threw
// value away.
import { mistakes, plyOf } from "./rules.js";
import { forX } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// +1 X wins, 0 draw, -1 O wins.
function valueForX(position) {
  return position.to_move === "X" ? position.value : -position.value;
}

// The last point's value in words, beside it: to its right where there is room, else to its
// left; above it unless the line comes down into it or the top is too near (and the bottom is not).
function nowLabel(points, words, { rightEdge, top, bottom }) {
  const [cx, cy] = points[points.length - 1];
  const before = points[points.length - 2] ?? [cx, cy];
  const text = `now: ${words}`;
  const roomRight = cx + 12 + text.length * 6.2 < rightEdge; // about 6.2 units a character at 11px
  const above = (cy - 24 > top && before[1] >= cy) || cy + 20 > bottom;
  return svg("text", {
    x: roomRight ? cx + 10 : cx - 10,
    y: above ? cy - 9 : cy + 17,
    "text-anchor": roomRight ? "start" : "end",
    class: "now",
  }, text);
}

export function renderChart(root, positions, moves, variant) {
  const width = 360, height = 220, left = 56, right = 12, top = 10, bottom = 26;
  const span = Math.max(variant.cells, 1);
  // A win in r plies sits (span + 1 - r) steps from the middle: a finished game on the edge.
  const level = (value, remoteness) => (value * (span + 1 - remoteness)) / (span + 1);
  const x = (ply) => left + ((width - left - right) * ply) / span;
  const y = (c) => top + ((height - top - bottom) * (1 - c)) / 2;
  const plot = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart" });
  plot.append(svg("rect", { x: left, y: y(1), width: width - left - right, height: y(0) - y(1), class: "zone x" }));
  plot.append(svg("rect", { x: left, y: y(0), width: width - left - right, height: y(0) - y(1), class: "zone o" }));
  const step = span > 9 ? 4 : 2;
  for (let r = 1; r <= span - 2; r += step) { // none too near the draw line to read
    for (const [value, mark] of [[1, "X"], [-1, "O"]]) {
      const at = y(level(value, r));
      plot.append(svg("line", { x1: left, x2: width - right, y1: at, y2: at, class: "grid" }));
      plot.append(svg("text", { x: left - 6, y: at + 3.5, "text-anchor": "end", class: "axis" }, `${mark} in ${r}`));
    }
  }
  plot.append(svg("line", { x1: left, x2: width - right, y1: y(0), y2: y(0), class: "grid draw" }));
  plot.append(svg("text", { x: left - 6, y: y(0) + 3.5, "text-anchor": "end", class: "axis" }, "draw"));
  const every = span > 9 ? 2 : 1;
  for (let ply = 0; ply <= span; ply++) {
    if (ply % every && ply !== span) continue; // the last ply is always named
    plot.append(svg("text", { x: x(ply), y: height - 8, "text-anchor": "middle", class: "axis" }, String(ply)));
  }
  const ply0 = positions.length ? plyOf(positions[0].board) : 0;
  const points = positions.map((p, i) => [x(ply0 + i), y(level(valueForX(p), p.remoteness))]);
  plot.append(svg("polyline", { points: points.map((p) => p.join(",")).join(" "), class: "history" }));
  const bad = new Set(mistakes(positions, moves).map((m) => m.index));
  positions.forEach((position, i) => {
    const [cx, cy] = points[i];
    const dot = svg("circle", { cx, cy, r: 4, class: `dot v${valueForX(position)}` });
    dot.append(svg("title", {}, `after ply ${ply0 + i}: ${forX(position)}`));
    plot.append(dot);
    if (bad.has(i)) plot.append(svg("circle", { cx, cy, r: 8, class: "mistake" }));
  });
  if (points.length) {
    const edges = { rightEdge: width - right, top, bottom: height - bottom };
    plot.append(nowLabel(points, forX(positions[positions.length - 1]), edges));
  }
  plot.setAttribute("aria-label", `Value history from X's view: ${positions.map(forX).join(", ")}`);
  root.replaceChildren(plot);
}
