// Drawing the board: each free cell coloured by what moving there gives the side to move, the
// preferred moves underlined, the last move tinted and a completed line marked; or, in play mode,
// plain free cells; or the board being edited.
import { EMPTY, completedCells, preferred } from "./rules.js";
import { OUTCOME, describeMark, describeMove } from "./words.js";

const LETTER = { 1: "W", 0: "D", "-1": "L" };
const HUE = { 1: 130, 0: 45, "-1": 3 };

// A move's colour: its result's hue, deeper when the end is nearer.
export function shade(value, remoteness, cells) {
  const t = Math.min(1, Math.max(0, (remoteness - 1) / Math.max(1, cells - 1)));
  const light = 36 + Math.round(36 * t);
  const saturation = value === 0 ? 85 : 60;
  return { background: `hsl(${HUE[value]} ${saturation}% ${light}%)`, color: light < 52 ? "#fff" : "#111" };
}

function markCell(button, cell, mark, last, inLine) {
  button.textContent = mark;
  button.classList.add("mark", mark === "X" ? "x" : "o");
  if (inLine) button.classList.add("completed");
  const words = describeMark(cell, mark, last) + (inLine ? ", in the completed line" : "");
  button.setAttribute("aria-label", words);
  button.setAttribute("aria-disabled", "true");
}

// A free cell with the analysis hidden: playable, with nothing that tells its value.
function plainMoveCell(button, position, move, onPlay) {
  button.classList.add("free");
  const words = describeMove(position, move, true);
  button.title = words;
  button.setAttribute("aria-label", words);
  button.addEventListener("click", () => onPlay(move.cell));
}

function moveCell(button, position, move, variant, isPreferred, onPlay) {
  const colours = shade(move.value, move.remoteness, variant.cells);
  button.style.background = colours.background;
  button.style.color = colours.color;
  button.classList.add(OUTCOME[move.value]);
  if (isPreferred) button.classList.add("best");
  const label = document.createElement("span");
  label.className = "label";
  label.textContent = `${LETTER[move.value]}${move.remoteness}`;
  button.append(label);
  const words = describeMove(position, move) + (isPreferred ? "; a preferred move" : "");
  button.title = words;
  button.setAttribute("aria-label", words);
  button.addEventListener("click", () => onPlay(move.cell));
}

function shapeBoard(root, variant) {
  root.style.gridTemplateColumns = `repeat(${variant.cols}, 1fr)`;
  root.classList.toggle("big", variant.cells > 9);
  root.replaceChildren();
}

function cellButton(cell) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "cell";
  button.dataset.cell = String(cell);
  return button;
}

// The board of a game; with `hidden` (the play mode) free cells show no value.
export function renderBoard(root, position, variant, lastCell, onPlay, hidden = false) {
  shapeBoard(root, variant);
  const moves = new Map(position.moves.map((m) => [m.cell, m]));
  const best = new Set(preferred(position).map((m) => m.cell));
  const completed = completedCells(position.board, variant);
  for (let cell = 0; cell < variant.cells; cell++) {
    const button = cellButton(cell);
    const mark = position.board[cell];
    const move = moves.get(cell);
    if (mark !== EMPTY) {
      markCell(button, cell, mark, cell === lastCell, completed.has(cell));
    } else if (move && hidden) {
      plainMoveCell(button, position, move, onPlay);
    } else if (move) {
      moveCell(button, position, move, variant, best.has(cell), onPlay);
    } else {
      button.setAttribute("aria-label", `Cell ${cell}: empty, the game is over`);
      button.setAttribute("aria-disabled", "true");
    }
    if (cell === lastCell) button.classList.add("last");
    root.append(button);
  }
}

// The board being edited: any cell takes a piece (`onPaint(cell)`), whatever the rules say;
// the API judges the whole board, as it judges a typed one.
export function renderDraft(root, draft, variant, onPaint) {
  shapeBoard(root, variant);
  for (let cell = 0; cell < variant.cells; cell++) {
    const button = cellButton(cell);
    const mark = draft[cell];
    if (mark !== EMPTY) {
      button.textContent = mark;
      button.classList.add("mark", mark === "X" ? "x" : "o");
    }
    button.classList.add("editable");
    button.setAttribute("aria-label", `Cell ${cell}: ${mark === EMPTY ? "empty" : mark}`);
    button.addEventListener("click", () => onPaint(cell));
    root.append(button);
  }
}
