// The lists beside the board: the moves grouped by result, the principal line from here, and
// the moves played so far (each a button: play it, play the line up to it, jump to it).
import { shade } from "./board.js";
import { groupByResult, mistakes, other, plyOf, preferred } from "./rules.js";
import { OUTCOME, describeMove, plies } from "./words.js";

function button(className, text, title, onClick) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = className;
  node.textContent = text;
  if (title) node.title = title;
  node.addEventListener("click", onClick);
  return node;
}

function span(className, text) {
  const node = document.createElement("span");
  node.className = className;
  node.textContent = text;
  return node;
}

function groupHeading(position, value, count) {
  const mover = position.to_move;
  const text = { 1: `Win for ${mover}`, 0: "Draw", "-1": `Loss for ${mover}` }[value];
  const heading = document.createElement("h3");
  heading.className = `group-title ${OUTCOME[value]}`;
  heading.append(`${text} `, span("count", `(${count})`));
  if (value === position.value) heading.append(" ", span("keeps", "best moves: keep the value"));
  return heading;
}

function moveItem(position, move, variant, isPreferred, onPlay) {
  const item = document.createElement("li");
  const row = Math.floor(move.cell / variant.cols) + 1;
  const col = (move.cell % variant.cols) + 1;
  const node = button(`move ${OUTCOME[move.value]}`, "", describeMove(position, move), () => onPlay(move.cell));
  const swatch = span("swatch", "");
  swatch.style.background = shade(move.value, move.remoteness, variant.cells).background;
  const cell = document.createElement("strong");
  cell.textContent = String(move.cell);
  node.append(swatch, cell, " ", span("where", `(row ${row}, col ${col})`), ` ${OUTCOME[move.value]} in ${plies(move.remoteness)}`);
  if (isPreferred) node.append(" ", span("star", "★"));
  item.append(node);
  return item;
}

// The moves best first, grouped by result for the side to move (as syzygy-tables.info lists
// winning, drawing and losing moves); the group that keeps the value is the best moves.
export function renderMoves(root, position, variant, onPlay) {
  root.replaceChildren();
  if (!position.moves.length) {
    root.append(span("none", "No moves: the game is over."));
    return;
  }
  const stars = new Set(preferred(position).map((m) => m.cell));
  let rank = 1;
  for (const group of groupByResult(position)) {
    const section = document.createElement("section");
    section.className = `group ${OUTCOME[group.value]}`;
    const list = document.createElement("ol");
    list.start = rank;
    for (const move of group.moves) list.append(moveItem(position, move, variant, stars.has(move.cell), onPlay));
    rank += group.moves.length;
    section.append(groupHeading(position, group.value, group.moves.length), list);
    root.append(section);
  }
}

// The principal line from the API: each step plays the line up to it.
export function renderLine(root, position, onPlayLine) {
  root.replaceChildren();
  if (!position.line.length) {
    root.append("None: the game is over.");
    return;
  }
  const list = document.createElement("ol");
  position.line.forEach((cell, i) => {
    const item = document.createElement("li");
    const mover = i % 2 ? other(position.to_move) : position.to_move;
    const title = `Play the perfect line up to here (${i + 1} ${i ? "moves" : "move"})`;
    item.append(button("step", `${mover} ${cell}`, title, () => onPlayLine(i + 1)));
    list.append(item);
  });
  const winner = position.value === 0 ? null : position.value > 0 ? position.to_move : other(position.to_move);
  root.append(list, span("end", winner ? `${winner} wins` : "a draw"));
}

// The moves played from the start, and any that can be redone; each jumps to the position after
// it. Moves that threw value away are marked unless the analysis is hidden.
export function renderPlayed(root, game, onJump) {
  const ply0 = plyOf(game.start);
  const flagged = new Map(game.hidden ? [] : mistakes(game.positions, game.line).map((m) => [m.index, m]));
  const start = button("ply start", ply0 ? "Start position" : "Empty board", "Go to the start", () => onJump(0));
  if (game.ply === 0) start.setAttribute("aria-current", "step");
  const list = document.createElement("ol");
  list.start = ply0 + 1;
  game.line.forEach((cell, i) => {
    const mark = (ply0 + i) % 2 === 0 ? "X" : "O";
    const bad = flagged.get(i + 1);
    const title = bad ? `${mark} ${cell} threw value away` : `Go to the position after ${mark} ${cell}`;
    const node = button("ply", `${mark} ${cell}${bad ? "?" : ""}`, title, () => onJump(i + 1));
    if (i + 1 === game.ply) node.setAttribute("aria-current", "step");
    if (i + 1 > game.ply) node.classList.add("future");
    const item = document.createElement("li");
    item.append(node);
    list.append(item);
  });
  root.replaceChildren(start, list);
}
