// The explorer's controls: every action (a move, undo, redo, a jump, Back and Forward, a new
// game, a typed position, the computer's reply) changes the game one at a time, redraws the page
// and records the game in the address and in the browser's history.
import { ApiError, byBoard, byMoves, fetchVariants } from "./api.js";
import { renderBoard } from "./board.js";
import { renderChart } from "./chart.js";
import {
  address, advance, computerToMove, current, findVariant, forwardTo, isLegal, newGame, snapshot, state,
} from "./game.js";
import { renderLine, renderMoves, renderPlayed } from "./lists.js";
import { emptyBoard, preferred } from "./rules.js";
import { describeMistakes, hintInWords, positionInWords, rulesInWords, skillProblem } from "./words.js";

const $ = (id) => document.getElementById(id);
const NOTICE_MS = 4000;
const REPLY_MS = 250;

// One action at a time: each waits for the one before, so answers never interleave.
let queue = Promise.resolve();
function act(job) {
  queue = queue.then(job).catch((error) => {
    showError(error instanceof ApiError ? error.message : `Something went wrong: ${error.message}`);
  });
  return queue;
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = !message;
}

let noticeTimer = 0;
function showNotice(message) {
  clearTimeout(noticeTimer);
  $("notice").textContent = message;
  if (message) noticeTimer = setTimeout(() => showNotice(""), NOTICE_MS);
}

function writeAddress(how) {
  const url = address();
  if (how === "push" && url !== location.pathname + location.search) history.pushState(snapshot(), "", url);
  else history.replaceState(snapshot(), "", url);
}

function showHint() {
  const board = $("board");
  const cell = board.contains(document.activeElement) ? document.activeElement : board.querySelector(".cell:hover");
  $("detail").textContent = cell ? cell.getAttribute("aria-label") : hintInWords();
}

// Where keyboard focus lands on the board: the last move, else the first listed move.
function homeCell() {
  const last = state.ply ? state.line[state.ply - 1] : -1;
  return last >= 0 ? last : current().moves[0]?.cell ?? 0;
}

// Redraw everything. Keyboard focus stays where it was unless a redraw removed its element:
// then it goes to `focus` (a cell) or to the same cell or step as before.
function render(focus) {
  const variant = state.variant;
  const position = current();
  const active = document.activeElement;
  const cellBefore = $("board").contains(active) ? Number(active.dataset.cell) : undefined;
  const stepBefore = $("played").contains(active) ? active.dataset.ply : undefined;
  const rebuilt = ["board", "moves", "line", "played"].some((id) => $(id).contains(active));
  const idle = !active || active === document.body;
  const last = state.ply ? state.line[state.ply - 1] : -1;
  const play = (cell) => humanPlays([cell]);
  renderBoard($("board"), position, variant, last, play);
  renderMoves($("moves"), position, variant, play);
  renderLine($("line"), position, (n) => humanPlays(current().line.slice(0, n)));
  renderPlayed($("played"), state, jump);
  const shown = state.positions.slice(0, state.ply + 1);
  renderChart($("chart"), shown, state.line.slice(0, state.ply), variant);
  $("mistakes").textContent = describeMistakes(shown, state.line) || "No move has thrown value away.";
  $("status").textContent = positionInWords(position, variant);
  $("rules").textContent = rulesInWords(variant);
  $("rules").classList.toggle("misere", variant.misere);
  $("variant").value = variant.name;
  $("undo").disabled = state.ply === 0;
  $("redo").disabled = state.ply >= state.line.length;
  $("new").title = state.start === emptyBoard(variant) ? "New game (n)" : `New game from ${state.start} (n)`;
  if ($("position") !== document.activeElement) {
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

// Show the state: redraw, record it in the address (a new history entry, or in place) and let
// the computer reply if it is to move. Transient notices end here.
function commit(how, { focus, error = "" } = {}) {
  state.token++;
  if (error !== null) showError(error);
  showNotice("");
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

function parseMoves(text) {
  return text.split(",").filter((part) => part.trim() !== "").map((part) => part.trim());
}

// Skill is the chance of a perfect move, from 0 to 1. Anything else is refused beside the
// field, which keeps what was given; the skill in play stays as it was.
function readSkill(text) {
  const number = text.trim() === "" ? NaN : Number(text);
  const accepted = Number.isFinite(number) && number >= 0 && number <= 1;
  if (accepted) state.skill = number;
  $("skill").setAttribute("aria-invalid", String(!accepted));
  $("skill-problem").textContent = accepted ? "" : skillProblem(text, state.skill);
  $("skill-problem").hidden = accepted;
  return accepted;
}

function readSettings(mode, skill) {
  state.mode = ["X", "O"].includes(mode) ? mode : "none";
  $("mode").value = state.mode;
  const text = String(skill ?? "1");
  $("skill").value = text;
  readSkill(text);
}

// The game the address describes, or as much of it as is legal: an unknown variant falls back
// to a served one, an illegal start board to the empty board, illegal moves to the legal ones
// before them; the API's message says what was wrong.
async function fromAddress(how) {
  const q = new URLSearchParams(location.search);
  readSettings(q.get("play"), q.get("skill"));
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
  commit(how, { error: problems.join(" ") });
}

async function fromHistory(entry) {
  const variant = entry && findVariant(entry.variant);
  if (!variant) return fromAddress("replace");
  readSettings(entry.mode, entry.skill);
  newGame(variant, await byBoard(variant.name, entry.start));
  state.line = entry.line;
  await forwardTo(entry.ply);
  commit("replace");
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

function shortcuts(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement?.tagName)) return;
  const action = { u: undo, r: redo, n: () => restart(state.variant, state.start) }[event.key];
  if (action && state.variant) {
    event.preventDefault();
    action();
  }
}

function listen() {
  $("variant").addEventListener("change", (e) => restart(findVariant(e.target.value), null));
  $("mode").addEventListener("change", (e) =>
    act(() => {
      state.mode = e.target.value;
      commit("replace", { error: null });
    }));
  $("skill").addEventListener("change", (e) =>
    act(() => {
      if (readSkill(e.target.value)) commit("replace", { error: null }); // text that is no number reads ""
    }));
  $("skip").addEventListener("click", (e) => {
    e.preventDefault();
    if (state.variant) $("board").querySelector(`[data-cell="${homeCell()}"]`)?.focus();
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("new").addEventListener("click", () => restart(state.variant, state.start));
  $("clear").addEventListener("click", () => restart(state.variant, null));
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
    if (cell) $("detail").textContent = cell.getAttribute("aria-label");
  });
  board.addEventListener("mouseleave", showHint);
  board.addEventListener("focusin", showHint);
  board.addEventListener("focusout", () => setTimeout(showHint));
  document.addEventListener("keydown", shortcuts);
  window.addEventListener("popstate", (e) => act(() => fromHistory(e.state)));
}

async function main() {
  state.variants = await fetchVariants();
  for (const variant of state.variants) {
    $("variant").append(new Option(`${variant.name} (${variant.cells} cells)`, variant.name));
  }
  listen();
  $("detail").textContent = hintInWords();
  await act(() => fromAddress("replace"));
}

main().catch((error) => showError(`The explorer could not start: ${error.message}`));
