// Drawing the page from the state: the board (the game's, or the one being edited), the
// analysis beside it (or, in play mode, the way to reveal it), the buttons and the hint line,
// and the error and notice lines. What a click does is the actions' business (`on`, set by
// app.js), so drawing never changes the game.
import { renderBoard, renderDraft } from "./board.js";
import { renderChart } from "./chart.js";
import { editor } from "./editor.js";
import { current, state } from "./game.js";
import { renderLine, renderMoves, renderPlayed } from "./lists.js";
import { emptyBoard } from "./rules.js";
import {
  describeMistakes, editHint, editingInWords, hintInWords, positionInWords, rulesInWords,
} from "./words.js";

export const $ = (id) => document.getElementById(id);
const NOTICE_MS = 4000;

// What the page's own buttons do: play cells from the shown position, jump to a ply, paint a
// cell in the editor.
export const on = { play: () => {}, jump: () => {}, paint: () => {} };

export function showError(message) {
  $("error").textContent = message;
  $("error").hidden = !message;
}

let noticeTimer = 0;
export function showNotice(message) {
  clearTimeout(noticeTimer);
  $("notice").textContent = message;
  if (message) noticeTimer = setTimeout(() => showNotice(""), NOTICE_MS);
}

const isOver = () => current()?.moves.length === 0;
export const isSetUp = () => state.start !== emptyBoard(state.variant);
// The hint line describes the cell focused or pointed at while a game is played; in the editor
// it says how to place a piece, and once the game is over what to do now.
export const hintFollowsCells = () => !editor.on && !isOver();

export function showHint() {
  const board = $("board");
  const cell = board.contains(document.activeElement) ? document.activeElement : board.querySelector(".cell:hover");
  if (cell && hintFollowsCells()) $("detail").textContent = cell.getAttribute("aria-label");
  else if (editor.on) $("detail").textContent = editHint();
  else $("detail").textContent = hintInWords({ over: isOver(), hidden: state.hidden, setUp: isSetUp() });
}

// Where keyboard focus lands on the board: the last move, else the first listed move.
export function homeCell() {
  const last = state.ply ? state.line[state.ply - 1] : -1;
  return last >= 0 ? last : current().moves[0]?.cell ?? 0;
}

// Redraw everything. Keyboard focus stays where it was unless a redraw removed its element:
// then it goes to `focus` (a cell) or to the same cell or step as before.
export function render(focus) {
  const variant = state.variant;
  const position = current();
  const active = document.activeElement;
  const cellBefore = $("board").contains(active) ? Number(active.dataset.cell) : undefined;
  const stepBefore = $("played").contains(active) ? active.dataset.ply : undefined;
  const rebuilt = ["board", "moves", "line", "played"].some((id) => $(id).contains(active));
  const idle = !active || active === document.body;
  const last = state.ply ? state.line[state.ply - 1] : -1;
  const play = (cell) => on.play([cell]);
  if (editor.on) renderDraft($("board"), editor.draft, variant, on.paint);
  else renderBoard($("board"), position, variant, last, play, state.hidden);
  renderAnalysis(position, variant, play);
  renderPlayed($("played"), state, on.jump);
  $("status").textContent = editor.on ? editingInWords() : positionInWords(position, variant, state.hidden);
  $("rules").textContent = rulesInWords(variant);
  $("rules").classList.toggle("misere", variant.misere);
  $("variant").value = variant.name;
  $("undo").disabled = state.ply === 0;
  $("redo").disabled = state.ply >= state.line.length;
  $("restart").hidden = !isSetUp();
  $("restart").title = `Play again from the set-up position ${state.start}`;
  renderEditor();
  if ($("position") !== document.activeElement && !editor.on) {
    $("position").value = position.board;
    $("position").removeAttribute("aria-invalid");
  }
  if (stepBefore !== undefined) {
    $("played").querySelector(`[data-ply="${stepBefore}"]`)?.focus();
  } else if (rebuilt || (idle && focus !== undefined)) {
    const target = focus ?? cellBefore ?? homeCell();
    $("board").querySelector(`[data-cell="${target}"]`)?.focus();
  }
  showHint();
}

// The analysis beside the board, or (in play mode) a note with the way to reveal it.
export function renderAnalysis(position, variant, play) {
  const hidden = state.hidden;
  $("hide-analysis").checked = hidden;
  $("analysis-hidden").hidden = !hidden;
  for (const id of ["analysis-parts", "history-parts"]) $(id).hidden = hidden;
  document.querySelector(".legend").hidden = hidden;
  if (hidden) {
    for (const id of ["moves", "line", "chart", "mistakes"]) $(id).replaceChildren();
    return;
  }
  renderMoves($("moves"), position, variant, play);
  renderLine($("line"), position, (n) => on.play(current().line.slice(0, n)));
  const shown = state.positions.slice(0, state.ply + 1);
  renderChart($("chart"), shown, state.line.slice(0, state.ply), variant);
  $("mistakes").textContent = describeMistakes(shown, state.line) || "No move has thrown value away.";
}

export function renderEditor() {
  $("editor").hidden = !editor.on;
  $("edit").setAttribute("aria-pressed", String(editor.on));
  document.querySelector(".play").classList.toggle("editing", editor.on);
  for (const button of $("editor").querySelectorAll("[data-piece]")) {
    button.setAttribute("aria-pressed", String(button.dataset.piece === editor.piece));
  }
}
