// The explorer's controls: every action (a move, undo, redo, a jump, Back and Forward, a new
// game, a position set up, the computer's reply, a setting) changes the game one at a time,
// redraws the page and records the game in the address and in the browser's history.
import { ApiError, byBoard, byMoves, fetchVariants } from "./api.js";
import { check, clearDraft, editor, paint, pieceOfKey, startEditing, stopEditing } from "./editor.js";
import {
  address, advance, computerToMove, current, findVariant, forwardTo, isLegal, newGame, snapshot, state,
} from "./game.js";
import { emptyBoard, preferred } from "./rules.js";
import { parseSkill, readSettings, readSkill, showSkill, skillRefused } from "./settings.js";
import {
  $, hintFollowsCells, homeCell, on, render, renderEditor, showError, showHint, showNotice,
} from "./view.js";
import { draftInWords, hintInWords } from "./words.js";

const REPLY_MS = 250;

// One action at a time: each waits for the one before, so answers never interleave.
let queue = Promise.resolve();
function act(job) {
  queue = queue.then(job).catch((error) => {
    showError(error instanceof ApiError ? error.message : `Something went wrong: ${error.message}`);
  });
  return queue;
}

function writeAddress(how) {
  const url = address();
  if (how === "push" && url !== location.pathname + location.search) history.pushState(snapshot(), "", url);
  else history.replaceState(snapshot(), "", url);
}

// Show the state: redraw, record it in the address (a new history entry, or in place) and let
// the computer reply if it is to move. Transient notices end here, and so do the editor and a
// refused Skill (the field shows the skill in play again) unless the settings were just read.
function commit(how, { focus, error = "", settingsRead = false } = {}) {
  state.token++;
  if (error !== null) showError(error);
  showNotice("");
  stopEditing();
  if (!settingsRead && skillRefused()) showSkill(String(state.skill));
  render(focus);
  writeAddress(how);
  if (computerToMove()) {
    const token = state.token;
    setTimeout(() => act(() => token === state.token && computerReplies()), REPLY_MS);
  }
}

// perfect:P — a preferred move (uniform among them) with chance P, otherwise any legal move.
async function computerReplies() {
  if (!computerToMove()) return;
  const position = current();
  const pool = Math.random() < state.skill ? preferred(position) : position.moves;
  await advance([pool[Math.floor(Math.random() * pool.length)].cell]);
  commit("replace", { error: null }); // one history entry for a move and its reply
}

function humanPlays(cells) {
  return act(async () => {
    if (!cells.length || computerToMove() || !isLegal(current(), cells[0])) return;
    await advance(cells);
    commit("push", { focus: cells[cells.length - 1] });
  });
}

function undo() {
  return act(async () => {
    if (state.ply === 0) return;
    let undone;
    do {
      state.ply--;
      undone = state.line[state.ply];
    } while (state.ply > 0 && computerToMove());
    commit("push", { focus: undone });
  });
}

function redo() {
  return act(async () => {
    if (state.ply >= state.line.length) return;
    await forwardTo(state.ply + 1);
    commit("push", { focus: state.line[state.ply - 1] });
  });
}

function jump(ply) {
  return act(async () => {
    await forwardTo(ply);
    commit("push");
  });
}

function restart(variant, start) {
  return act(async () => {
    newGame(variant, await byBoard(variant.name, start ?? emptyBoard(variant)));
    commit("push");
  });
}

function setUp(text) {
  return act(async () => {
    const input = $("position");
    let first;
    try {
      first = await byBoard(state.variant.name, text.trim());
    } catch (error) {
      input.setAttribute("aria-invalid", "true");
      throw error;
    }
    input.removeAttribute("aria-invalid");
    newGame(state.variant, first);
    input.value = first.board;
    commit("push");
  });
}

// The editor: each change redraws the board, writes the draft into the Board box (what Set up
// sets up) and asks the API about it, as for a typed board.
function startEditor() {
  return act(() => {
    startEditing(current().board);
    $("position").value = editor.draft;
    $("edit-status").textContent = "";
    render(homeCell());
    $("board").querySelector(`[data-cell="${homeCell()}"]`)?.focus();
    return checkDraft(editor.draft);
  });
}

function leaveEditor() {
  return act(() => {
    stopEditing();
    render(homeCell());
  });
}

function paintAndCheck(cell, piece) {
  paint(cell, piece);
  edited(cell);
}

function edited(focus) {
  $("position").value = editor.draft;
  render(focus);
  act(() => checkDraft(editor.draft));
}

// The API's verdict on `text`, shown unless the Board box holds something newer meanwhile.
async function checkDraft(text) {
  const verdict = await check(state.variant.name, text);
  if (!verdict || !editor.on || text !== $("position").value) return;
  const { position, message } = verdict;
  if (message) $("position").setAttribute("aria-invalid", "true");
  else $("position").removeAttribute("aria-invalid");
  $("edit-status").classList.toggle("problem", Boolean(message));
  $("edit-status").textContent = message ?? draftInWords(position, state.variant, state.hidden);
  if (position && position.board !== editor.draft) {
    editor.draft = position.board; // a board typed in the Board box, in the API's spelling
    render();
  }
}

function parseMoves(text) {
  return text.split(",").filter((part) => part.trim() !== "").map((part) => part.trim());
}

// The game the address describes, or as much of it as is legal: an unknown variant falls back
// to a served one, an illegal start board to the empty board, illegal moves to the legal ones
// before them; the API's message says what was wrong.
async function fromAddress(how) {
  const q = new URLSearchParams(location.search);
  readSettings(q.get("play"), q.get("skill"), q.get("analysis") === "hidden");
  const problems = [];
  const name = q.get("variant") ?? "3x3";
  let variant = findVariant(name);
  if (!variant) {
    const served = state.variants.map((v) => v.name).join(", ");
    problems.push(`variant '${name}' is not served here; served: ${served}`); // as the API says it
    variant = findVariant("3x3") ?? state.variants[0];
  }
  const board = q.get("board");
  let first = null;
  if (board !== null && !problems.length) {
    try {
      first = await byBoard(variant.name, board);
    } catch (error) {
      problems.push(error.message);
    }
  }
  newGame(variant, first ?? (await byBoard(variant.name, emptyBoard(variant))));
  const moves = q.get("moves");
  if (moves && !problems.length) {
    if (board === null) await byMoves(variant.name, moves).catch((e) => problems.push(e.message));
    for (const text of parseMoves(moves)) {
      const cell = Number(text);
      if (!Number.isInteger(cell) || !isLegal(current(), cell)) {
        if (!problems.length) problems.push(`move ${text} is not legal on '${current().board}'`);
        break;
      }
      await advance([cell]);
    }
  }
  commit(how, { error: problems.join(" "), settingsRead: true });
}

async function fromHistory(entry) {
  const variant = entry && findVariant(entry.variant);
  if (!variant) return fromAddress("replace");
  readSettings(entry.mode, entry.skill, entry.hidden);
  newGame(variant, await byBoard(variant.name, entry.start));
  state.line = entry.line;
  await forwardTo(entry.ply);
  commit("replace", { settingsRead: true });
}

function moveFocus(event) {
  const cells = [...$("board").querySelectorAll(".cell")];
  const at = cells.indexOf(document.activeElement);
  const cols = state.variant?.cols ?? 3;
  const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols }[event.key];
  if (at < 0 || step === undefined) return;
  const target = cells[at + step];
  if (target) {
    target.focus();
    event.preventDefault();
  }
}

// In the editor, a piece's key on a focused cell places it, and Esc leaves.
function editKeys(event) {
  if (!editor.on || event.ctrlKey || event.metaKey || event.altKey) return;
  const cell = $("board").contains(document.activeElement) ? Number(document.activeElement.dataset.cell) : NaN;
  const piece = pieceOfKey(event.key);
  if (piece !== undefined && Number.isInteger(cell)) {
    event.preventDefault();
    paintAndCheck(cell, piece);
  }
}

function shortcuts(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (editor.on && event.key === "Escape") return leaveEditor();
  if (editor.on || ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement?.tagName)) return;
  const action = { u: undo, r: redo, n: () => restart(state.variant, null) }[event.key];
  if (action && state.variant) {
    event.preventDefault();
    action();
  }
}

// The settings: variant, opponent, skill and play mode.
function listenToSettings() {
  $("variant").addEventListener("change", (e) => restart(findVariant(e.target.value), null));
  $("mode").addEventListener("change", (e) =>
    act(() => {
      state.mode = e.target.value;
      commit("replace", { error: null });
    }));
  const takeSkill = (e) =>
    act(() => {
      if (readSkill(e.target.value)) commit("replace", { error: null }); // text that is no number reads ""
    });
  $("skill").addEventListener("change", takeSkill);
  // as it is typed, a skill is taken once it is a good one, and a refused one checked again
  $("skill").addEventListener("input", (e) => {
    if (parseSkill(e.target.value) !== null || skillRefused()) takeSkill(e);
  });
  const showAnalysis = (shown) =>
    act(() => {
      state.hidden = !shown;
      commit("replace", { error: null });
    });
  $("hide-analysis").addEventListener("change", (e) => showAnalysis(!e.target.checked));
  $("reveal").addEventListener("click", () => showAnalysis(true));
}

// The editor: its button, the pieces, Clear and Cancel, and the Board box followed as it is typed.
function listenToEditor() {
  $("edit").addEventListener("click", () => (editor.on ? leaveEditor() : startEditor()));
  $("edit-cancel").addEventListener("click", leaveEditor);
  $("edit-clear").addEventListener("click", () => {
    clearDraft(state.variant);
    edited();
  });
  for (const button of $("editor").querySelectorAll("[data-piece]")) {
    button.addEventListener("click", () => {
      editor.piece = button.dataset.piece;
      renderEditor();
    });
  }
  $("position").addEventListener("input", (e) => editor.on && act(() => checkDraft(e.target.value)));
  $("board").addEventListener("keydown", editKeys);
}

function listen() {
  listenToSettings();
  listenToEditor();
  $("skip").addEventListener("click", (e) => {
    e.preventDefault();
    if (state.variant) $("board").querySelector(`[data-cell="${homeCell()}"]`)?.focus();
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("new").addEventListener("click", () => restart(state.variant, null));
  $("restart").addEventListener("click", () => restart(state.variant, state.start));
  $("share").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      showNotice("Link copied: it restores this variant and position.");
    } catch {
      showNotice(`Link: ${location.href}`);
    }
  });
  $("position-form").addEventListener("submit", (e) => {
    e.preventDefault();
    setUp($("position").value);
  });
  const board = $("board");
  board.addEventListener("keydown", moveFocus);
  board.addEventListener("mouseover", (e) => {
    const cell = e.target.closest?.(".cell");
    if (cell && hintFollowsCells()) $("detail").textContent = cell.getAttribute("aria-label");
  });
  board.addEventListener("mouseleave", showHint);
  board.addEventListener("focusin", showHint);
  board.addEventListener("focusout", () => setTimeout(showHint));
  document.addEventListener("keydown", shortcuts);
  window.addEventListener("popstate", (e) => act(() => fromHistory(e.state)));
}

async function main() {
  Object.assign(on, { play: humanPlays, jump, paint: paintAndCheck });
  state.variants = await fetchVariants();
  for (const variant of state.variants) {
    $("variant").append(new Option(`${variant.name} (${variant.cells} cells)`, variant.name));
  }
  listen();
  $("detail").textContent = hintInWords();
  await act(() => fromAddress("replace"));
}

main().catch((error) => showError(`The explorer could not start: ${error.message}`));
