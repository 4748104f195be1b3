// Drawing the explorer: the board, the move list, the position in words and the value history.
// Values are +1 win, 0 draw, -1 loss for the side to move (as in the API).

const OUTCOME = { 1: "win", 0: "draw", "-1": "loss" };
const LETTER = { 1: "W", 0: "D", "-1": "L" };
const HUE = { 1: 130, 0: 45, "-1": 3 };

export function plies(n) {
  return `${n} ${n === 1 ? "ply" : "plies"}`;
}

function other(mark) {
  return mark === "X" ? "O" : "X";
}

// A move's colour: its result's hue, deeper when the end is nearer.
export function shade(value, remoteness, cells) {
  const t = Math.min(1, Math.max(0, (remoteness - 1) / Math.max(1, cells - 1)));
  const light = 36 + Math.round(36 * t);
  const saturation = value === 0 ? 85 : 60;
  return { background: `hsl(${HUE[value]} ${saturation}% ${light}%)`, color: light < 52 ? "#fff" : "#111" };
}

export function describeMove(position, move) {
  const mover = position.to_move;
  const result =
    move.value === 0
      ? `a draw (${plies(move.remoteness)} to the end)`
      : `${move.value > 0 ? mover : other(mover)} wins in ${plies(move.remoteness)}`;
  return `Cell ${move.cell}: ${mover} plays here, then ${result}`;
}

export function positionInWords(position) {
  if ("winner" in position) {
    return position.winner ? `Game over: ${position.winner} won.` : "Game over: a draw.";
  }
  const mover = position.to_move;
  const r = plies(position.remoteness);
  if (position.value === 0) return `${mover} to move: a draw with perfect play, ${r} to the end.`;
  if (position.value > 0) return `${mover} to move: ${mover} wins in ${r}.`;
  return `${mover} to move: ${other(mover)} wins in ${r}.`;
}

// The moves a perfect player picks among: the best value, fastest win or slowest loss.
export function preferred(position) {
  const top = position.moves[0];
  return position.moves.filter((m) => top && m.value === top.value && m.remoteness === top.remoteness);
}

export function renderBoard(root, position, variant, lastCell, onPlay) {
  root.style.gridTemplateColumns = `repeat(${variant.cols}, 1fr)`;
  root.classList.toggle("big", variant.cells > 9);
  const moves = new Map(position.moves.map((m) => [m.cell, m]));
  const best = new Set(preferred(position).map((m) => m.cell));
  root.replaceChildren();
  for (let cell = 0; cell < variant.cells; cell++) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cell";
    button.dataset.cell = String(cell);
    button.setAttribute("role", "gridcell");
    const mark = position.board[cell];
    const move = moves.get(cell);
    if (mark !== ".") {
      button.textContent = mark;
      button.classList.add("mark", mark === "X" ? "x" : "o");
      button.setAttribute("aria-label", `cell ${cell}: ${mark}`);
      button.setAttribute("aria-disabled", "true");
    } else if (move) {
      const colours = shade(move.value, move.remoteness, variant.cells);
      button.style.background = colours.background;
      button.style.color = colours.color;
      button.classList.add(OUTCOME[move.value]);
      if (best.has(cell)) button.classList.add("best");
      button.innerHTML = `<span class="label">${LETTER[move.value]}${move.remoteness}</span>`;
      const words = describeMove(position, move);
      button.title = words;
      button.setAttribute("aria-label", words);
      button.addEventListener("click", () => onPlay(cell));
    } else {
      button.setAttribute("aria-label", `cell ${cell}: empty, the game is over`);
      button.setAttribute("aria-disabled", "true");
    }
    if (cell === lastCell) button.classList.add("last");
    root.append(button);
  }
}

export function renderMoves(root, position, variant, onPlay) {
  root.replaceChildren();
  if (!position.moves.length) {
    const item = document.createElement("li");
    item.textContent = "No moves: the game is over.";
    root.append(item);
    return;
  }
  const best = new Set(preferred(position).map((m) => m.cell));
  for (const move of position.moves) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = `move ${OUTCOME[move.value]}`;
    const colours = shade(move.value, move.remoteness, variant.cells);
    const row = Math.floor(move.cell / variant.cols) + 1;
    const col = (move.cell % variant.cols) + 1;
    button.innerHTML =
      `<span class="swatch" style="background:${colours.background}"></span>` +
      `<strong>${move.cell}</strong> <span class="where">(row ${row}, col ${col})</span> ` +
      `${OUTCOME[move.value]} in ${plies(move.remoteness)}${best.has(move.cell) ? " ★" : ""}`;
    button.title = describeMove(position, move);
    button.addEventListener("click", () => onPlay(move.cell));
    item.append(button);
    root.append(item);
  }
}

// Which plies threw value away: the mover's move is worth less than the position was.
export function mistakes(positions, moves) {
  const found = [];
  for (let i = 0; i < moves.length && i + 1 < positions.length; i++) {
    const before = positions[i];
    const played = before.moves.find((m) => m.cell === moves[i]);
    if (played && played.value < before.value) {
      found.push({ ply: i + 1, mover: before.to_move, cell: moves[i], from: before.value, to: played.value });
    }
  }
  return found;
}

const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

// The value of each position so far from X's view (+1 X wins, 0 draw, -1 O wins), a ring on
// each move that threw value away.
export function renderChart(root, positions, moves, variant) {
  const width = 340, height = 150, left = 58, right = 12, top = 14, bottom = 28;
  const plot = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart" });
  const span = Math.max(variant.cells, 1);
  const x = (ply) => left + ((width - left - right) * ply) / span;
  const y = (value) => top + ((height - top - bottom) * (1 - value)) / 2;
  for (const [value, label] of [[1, "X wins"], [0, "draw"], [-1, "O wins"]]) {
    plot.append(svg("line", { x1: left, x2: width - right, y1: y(value), y2: y(value), class: "grid" }));
    plot.append(svg("text", { x: left - 6, y: y(value) + 4, "text-anchor": "end", class: "axis" }, label));
  }
  for (let ply = 0; ply <= span; ply += span > 9 ? 2 : 1) {
    plot.append(svg("text", { x: x(ply), y: height - 8, "text-anchor": "middle", class: "axis" }, String(ply)));
  }
  const ply0 = positions.length ? positions[0].board.replaceAll(".", "").length : 0;
  const forX = positions.map((p) => (p.to_move === "X" ? p.value : -p.value));
  const points = forX.map((v, i) => `${x(ply0 + i)},${y(v)}`).join(" ");
  plot.append(svg("polyline", { points, class: "history" }));
  const bad = new Set(mistakes(positions, moves).map((m) => m.ply));
  forX.forEach((v, i) => {
    const dot = svg("circle", { cx: x(ply0 + i), cy: y(v), r: 4, class: `dot v${v}` });
    dot.append(svg("title", {}, `after ply ${ply0 + i}: ${v > 0 ? "X wins" : v < 0 ? "O wins" : "draw"}`));
    plot.append(dot);
    if (bad.has(i)) plot.append(svg("circle", { cx: x(ply0 + i), cy: y(v), r: 8, class: "mistake" }));
  });
  const words = forX.map((v) => (v > 0 ? "X wins" : v < 0 ? "O wins" : "draw")).join(", ");
  plot.setAttribute("aria-label", `Value history from X's view: ${words}`);
  root.replaceChildren(plot);
}

export function describeMistakes(positions, moves) {
  const name = { 1: "a win", 0: "a draw", "-1": "a loss" };
  return mistakes(positions, moves)
    .map((m) => `Ply ${m.ply}: ${m.mover} played ${m.cell}, turning ${name[m.from]} into ${name[m.to]}.`)
    .join(" ");
}
