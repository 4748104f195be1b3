// The explorer's state and controls: a game (a start board and the cells played since), kept
// in the URL so that a link restores it; every position comes from the JSON API.
import {
  describeMistakes, positionInWords, preferred, renderBoard, renderChart, renderMoves,
} from "./view.js";

const $ = (id) => document.getElementById(id);
const state = {
  variants: new Map(), // name -> {name, rows, cols, cells, ...}
  variant: "3x3",
  start: null, // the start board text
  moves: [], // cells played from the start
  redo: [],
  positions: [], // the analysis after 0, 1, ... moves
  mode: "none", // which side the computer plays, or "none"
  skill: 1,
  token: 0, // bumps on every new game, so late answers of an old one are dropped
};
const cache = new Map();

class ApiError extends Error {}

async function fetchPosition(variant, query) {
  const key = `${variant}?${query}`;
  if (cache.has(key)) return cache.get(key);
  const response = await fetch(`/api/v1/${encodeURIComponent(variant)}?${query}`);
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new ApiError(body.error || `HTTP ${response.status}`);
  cache.set(key, body);
  return body;
}

const byBoard = (variant, board) => fetchPosition(variant, `board=${encodeURIComponent(board)}`);

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = !message;
}

function current() {
  return state.positions[state.positions.length - 1];
}

function place(position, cell) {
  const board = position.board;
  return board.slice(0, cell) + position.to_move + board.slice(cell + 1);
}

function writeUrl() {
  const q = new URLSearchParams({ variant: state.variant });
  const empty = ".".repeat(state.variants.get(state.variant)?.cells ?? 9);
  if (state.start && state.start !== empty) q.set("board", state.start);
  if (state.moves.length) q.set("moves", state.moves.join(","));
  if (state.mode !== "none") q.set("play", state.mode);
  if (state.skill !== 1) q.set("skill", String(state.skill));
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

function render() {
  const variant = state.variants.get(state.variant);
  const position = current();
  if (!variant || !position) return;
  const last = state.moves.length ? state.moves[state.moves.length - 1] : -1;
  renderBoard($("board"), position, variant, last, (cell) => humanPlays(cell));
  renderMoves($("moves"), position, variant, (cell) => humanPlays(cell));
  renderChart($("chart"), state.positions, state.moves, variant);
  $("mistakes").textContent = describeMistakes(state.positions, state.moves) || "No move has thrown value away.";
  $("status").textContent = positionInWords(position);
  $("undo").disabled = !state.moves.length;
  $("redo").disabled = !state.redo.length;
  writeUrl();
}

async function push(cell) {
  const position = current();
  if (!position || !position.moves.some((m) => m.cell === cell)) return false;
  const token = state.token;
  const next = await byBoard(state.variant, place(position, cell));
  if (token !== state.token || current() !== position) return false;
  state.moves.push(cell);
  state.positions.push(next);
  return true;
}

function computerToMove() {
  const position = current();
  return position && state.mode === position.to_move && position.moves.length > 0;
}

// perfect:P — a perfect move (uniform among the fastest wins / slowest losses) with chance P,
// otherwise a uniformly random legal move.
function computerChoice(position) {
  const perfect = preferred(position);
  const pool = Math.random() < state.skill ? perfect : position.moves;
  return pool[Math.floor(Math.random() * pool.length)].cell;
}

async function computerReplies() {
  const token = state.token;
  await new Promise((resolve) => setTimeout(resolve, 250));
  if (token !== state.token || !computerToMove()) return;
  if (await push(computerChoice(current()))) render();
}

async function humanPlays(cell) {
  if (computerToMove()) return;
  try {
    if (!(await push(cell))) return;
    state.redo = [];
    showError("");
    render();
    if (computerToMove()) await computerReplies();
  } catch (error) {
    showError(error.message);
  }
}

async function undo() {
  if (!state.moves.length) return;
  state.token++;
  do {
    state.redo.push(state.moves.pop());
    state.positions.pop();
  } while (state.moves.length && computerToMove());
  render();
}

async function redo() {
  if (!state.redo.length) return;
  state.token++;
  try {
    do {
      const cell = state.redo.pop();
      if (!(await push(cell))) break;
    } while (state.redo.length && computerToMove());
    render();
  } catch (error) {
    showError(error.message);
  }
}

// A new game from `start` (null: the empty board), replaying `moves` on it.
async function load(variantName, start, moves) {
  state.token++;
  const token = state.token;
  state.variant = variantName;
  state.redo = [];
  state.moves = [];
  state.positions = [];
  $("variant").value = variantName;
  const variant = state.variants.get(variantName);
  try {
    if (!variant) {
      await fetchPosition(variantName, "board="); // the API says why
      throw new ApiError(`variant '${variantName}' is not served here`);
    }
    state.start = start ?? ".".repeat(variant.cells);
    if (start === null && moves.length) {
      await fetchPosition(variantName, `moves=${moves.join(",")}`); // the API's message if illegal
    }
    const first = await byBoard(variantName, state.start);
    if (token !== state.token) return;
    state.positions = [first];
    for (const cell of moves) {
      if (!(await push(cell))) throw new ApiError(`move ${cell} is not legal on ${current().board}`);
    }
    showError("");
  } catch (error) {
    if (token !== state.token) return;
    showError(error.message);
    if (!state.positions.length && variant) {
      state.start = ".".repeat(variant.cells);
      state.positions = [await byBoard(variantName, state.start)];
      state.moves = [];
    } else if (!variant) {
      return;
    }
  }
  render();
  if (computerToMove()) await computerReplies();
}

function parseMoves(text) {
  if (!text) return [];
  return text.split(",").filter((part) => part.trim() !== "").map((part) => Number(part));
}

function moveFocus(event) {
  const cells = [...$("board").querySelectorAll(".cell")];
  const at = cells.indexOf(document.activeElement);
  const cols = state.variants.get(state.variant)?.cols ?? 3;
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
  const action = { u: undo, r: redo, n: () => load(state.variant, null, []) }[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
}

function showDetail(event) {
  const cell = event.target.closest?.(".cell");
  if (cell) $("detail").textContent = cell.getAttribute("aria-label");
}

async function main() {
  const response = await fetch("/api/v1/variants");
  const listed = (await response.json()).variants;
  for (const variant of listed) {
    state.variants.set(variant.name, variant);
    $("variant").append(new Option(`${variant.name} (${variant.cells} cells)`, variant.name));
  }
  const q = new URLSearchParams(location.search);
  state.mode = ["X", "O"].includes(q.get("play")) ? q.get("play") : "none";
  const skill = Number(q.get("skill") ?? "1");
  state.skill = Number.isFinite(skill) ? Math.min(1, Math.max(0, skill)) : 1;
  $("mode").value = state.mode;
  $("skill").value = String(state.skill);

  $("variant").addEventListener("change", (e) => load(e.target.value, null, []));
  $("mode").addEventListener("change", (e) => {
    state.mode = e.target.value;
    render();
    if (computerToMove()) computerReplies();
  });
  $("skill").addEventListener("change", (e) => {
    const value = Number(e.target.value);
    state.skill = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 1;
    e.target.value = String(state.skill);
    render();
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("new").addEventListener("click", () => load(state.variant, null, []));
  $("share").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      $("detail").textContent = "Link copied: it restores this variant and position.";
    } catch {
      $("detail").textContent = `Link: ${location.href}`;
    }
  });
  $("board").addEventListener("keydown", moveFocus);
  $("board").addEventListener("mouseover", showDetail);
  $("board").addEventListener("focusin", showDetail);
  document.addEventListener("keydown", shortcuts);
  await load(q.get("variant") || "3x3", q.get("board"), parseMoves(q.get("moves")));
}

main().catch((error) => showError(`The explorer could not start: ${error.message}`));
