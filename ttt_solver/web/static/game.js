// The game the explorer shows: a start board, the cells played from it (some perhaps taken back,
// to redo) and the ply shown, with the API's analysis of each position along the way.
import { ApiError, byBoard } from "./api.js";
import { emptyBoard, place } from "./rules.js";

export const state = {
  variants: [], // what /api/v1/variants lists: {name, rows, cols, k, misere, cells, ...}
  variant: null,
  start: "", // the start board text
  line: [], // cells played from the start: the first `ply` are on the board, the rest can be redone
  ply: 0,
  positions: [], // the API's analysis after 0, 1, ... cells of `line`, as far as fetched
  mode: "none", // which side the computer plays, or "none"
  skill: 1,
  hidden: false, // the play mode: the analysis (values, best moves, history) is not shown
  token: 0, // bumps on every change, so a computer reply planned for an older state is dropped
};

export const current = () => state.positions[state.ply];
export const isLegal = (position, cell) => position.moves.some((m) => m.cell === cell);

export function computerToMove() {
  const position = current();
  return Boolean(position) && state.mode === position.to_move && position.moves.length > 0;
}

export function findVariant(name) {
  const wanted = String(name ?? "").trim().toLowerCase();
  return state.variants.find((v) => v.name.toLowerCase() === wanted);
}

// The analysis along `line` up to `ply`, fetched where missing.
export async function reach(ply) {
  while (state.positions.length <= ply) {
    const before = state.positions[state.positions.length - 1];
    const cell = state.line[state.positions.length - 1];
    if (!isLegal(before, cell)) throw new ApiError(`move ${cell} is not legal on '${before.board}'`);
    state.positions.push(await byBoard(state.variant.name, place(before.board, cell, before.to_move)));
  }
}

// Play `cells` from the shown position; a different move than the one to redo drops the rest.
export async function advance(cells) {
  for (const cell of cells) {
    if (state.line[state.ply] !== cell) {
      state.line = [...state.line.slice(0, state.ply), cell];
      state.positions = state.positions.slice(0, state.ply + 1);
    }
    await reach(state.ply + 1);
    state.ply++;
  }
}

export function newGame(variant, first) {
  state.variant = variant;
  state.start = first.board;
  state.line = [];
  state.ply = 0;
  state.positions = [first];
}

// The address of the game: `?variant=3x3&moves=4,0,8`, then the settings (`play=O`, `skill=0.8`,
// `analysis=hidden`). The moves are cell numbers, written with plain commas (as README shows
// them, and as people type them); the other values are encoded.
export function address() {
  const query = [`variant=${encodeURIComponent(state.variant.name)}`];
  if (state.start !== emptyBoard(state.variant)) query.push(`board=${encodeURIComponent(state.start)}`);
  if (state.ply) query.push(`moves=${state.line.slice(0, state.ply).join(",")}`);
  if (state.mode !== "none") query.push(`play=${state.mode}`);
  if (state.skill !== 1) query.push(`skill=${state.skill}`);
  if (state.hidden) query.push("analysis=hidden");
  return `${location.pathname}?${query.join("&")}`;
}

// What a history entry keeps: the whole game, so Back and Forward restore moves to redo too.
export function snapshot() {
  const { variant, start, line, ply, mode, skill, hidden } = state;
  return { variant: variant.name, start, line, ply, mode, skill, hidden };
}

// Forward to `ply` (or to the ply after: the computer's moves are not stopped at).
export async function forwardTo(ply) {
  await reach(ply);
  state.ply = ply;
  while (state.ply < state.line.length && computerToMove()) {
    await reach(state.ply + 1);
    state.ply++;
  }
}
