// The page's sentences: positions, moves, lines and rules in words, and the wording for the
// kind of screen (click and hover with a mouse, tap on a touch screen).
import { mistakes, other } from "./rules.js";

export const OUTCOME = { 1: "win", 0: "draw", "-1": "loss" };

// A touch screen has no hover: say "tap" there.
export const touch = () => matchMedia("(hover: none), (pointer: coarse)").matches;

export function plies(n) {
  return `${n} ${n === 1 ? "ply" : "plies"}`;
}

// A value for the side `mover` to move, as a result: "X wins in 3 plies", "a draw (4 plies ...)".
export function result(mover, value, remoteness) {
  if (value === 0) return `a draw (${plies(remoteness)} to the end)`;
  return `${value > 0 ? mover : other(mover)} wins in ${plies(remoteness)}`;
}

export function describeMove(position, move, hidden = false) {
  const here = `Cell ${move.cell}: ${position.to_move} plays here`;
  return hidden ? here : `${here}, then ${result(position.to_move, move.value, move.remoteness)}`;
}

export function describeMark(cell, mark, last) {
  return `Cell ${cell}: ${mark}${last ? ", the last move" : ""}`;
}

// The position in words; with the analysis hidden, only whose move it is or who won.
export function positionInWords(position, variant, hidden = false) {
  if ("winner" in position) {
    if (!position.winner) return "Game over: a draw.";
    const why = variant?.misere ? ` (${other(position.winner)} completed a line)` : "";
    return `Game over: ${position.winner} won${why}.`;
  }
  const mover = position.to_move;
  if (hidden) return `${mover} to move.`;
  const r = plies(position.remoteness);
  if (position.value === 0) return `${mover} to move: a draw with perfect play, ${r} to the end.`;
  if (position.value > 0) return `${mover} to move: ${mover} wins in ${r}.`;
  return `${mover} to move: ${other(mover)} wins in ${r}.`;
}

// From X's view, as the value history draws it.
export function forX(position) {
  const value = position.to_move === "X" ? position.value : -position.value;
  if (value === 0) return "draw";
  return `${value > 0 ? "X" : "O"} ${position.remoteness ? `wins in ${plies(position.remoteness)}` : "won"}`;
}

const NUMBER = { 3: "three", 4: "four", 5: "five" };

export function rulesInWords(variant) {
  const row = `${NUMBER[variant.k] ?? variant.k} in a row`;
  const size = `${variant.rows} by ${variant.cols}`;
  if (variant.misere) {
    return `Misère ${size}: whoever completes ${row} loses, so each side tries not to; ` +
      "the colours and values already count that.";
  }
  return `${size}: ${row} wins.`;
}

// The hint line when no cell is pointed at: how to play, with the analysis hidden how to see
// it, and once the game is over what there is to do now (the buttons by their names).
export function hintInWords({ over = false, hidden = false, setUp = false } = {}) {
  if (over) {
    const again = `New game${touch() ? "" : " (n)"}${setUp ? " or Restart from set-up position" : ""}`;
    const why = hidden ? "Show analysis shows" : "the value history shows";
    return `Game over. Play again with ${again}; ${why} where the game was won or lost.`;
  }
  if (hidden) {
    return `${touch() ? "Tap" : "Click"} a cell to play it; the analysis is hidden until Show analysis.`;
  }
  return touch()
    ? "Tap a cell or a listed move to play it; each listed move says what it gives."
    : "Hover over or focus a cell to see its value; click it or press Enter to play it.";
}

// What the editor says of a legal board being edited.
export function draftInWords(position, variant, hidden) {
  return `${positionInWords(position, variant, hidden)} Set up this position to play from it.`;
}

// The status line while the board is edited: the board shown is not the game's.
export function editingInWords() {
  return "Editing the board: nothing is played until it is set up.";
}

// The hint line in the editor: how to place a piece.
export function editHint() {
  return `${touch() ? "Tap" : "Click"} a cell to place the chosen piece there (again to empty it)` +
    (touch() ? "." : ", or focus it and type x, o or . (empty).");
}

export function describeMistakes(positions, moves) {
  const name = { 1: "a win", 0: "a draw", "-1": "a loss" };
  return mistakes(positions, moves)
    .map((m) => `Ply ${m.ply}: ${m.mover} played ${m.cell}, turning ${name[m.from]} into ${name[m.to]}.`)
    .join(" ");
}

// Why a skill was refused: it is a chance, from 0 to 1; the one in play stays.
export function skillProblem(text, skill) {
  const given = text.trim() ? `, not ${text.trim()}` : "";
  return `Skill takes a number from 0 to 1 (the chance of a perfect move)${given}: it stays ${skill}.`;
}
