// The board editor: the shown board becomes a draft whose cells take X, O or empty by a click
// (the piece chosen; a click with the piece a cell holds empties it) or by a key on a focused
// cell (x, o; . or Delete or Backspace empties). Each draft goes to the API exactly as a typed
// board does, so the page keeps no legality rules of its own: the API's answer, or its
// message, shows as the board is edited.
import { ApiError, byBoard } from "./api.js";
import { EMPTY, emptyBoard, place } from "./rules.js";

export const editor = {
  on: false,
  draft: "", // the board being edited, one character a cell
  piece: "X", // what a click places
  asked: 0, // bumps on every check, so an answer for an older draft is dropped
};

const KEYS = { x: "X", o: "O", ".": EMPTY, Delete: EMPTY, Backspace: EMPTY };

export function startEditing(board) {
  editor.on = true;
  editor.draft = board;
}

export function stopEditing() {
  editor.on = false;
}

// The piece a key places, or undefined for a key the editor does not take.
export function pieceOfKey(key) {
  return KEYS[key.length === 1 ? key.toLowerCase() : key];
}

// Put `piece` on `cell`; a click (no piece given) places the chosen piece, or empties the cell
// if it holds that piece already.
export function paint(cell, piece) {
  const chosen = piece ?? (editor.draft[cell] === editor.piece ? EMPTY : editor.piece);
  editor.draft = place(editor.draft, cell, chosen);
}

export function clearDraft(variant) {
  editor.draft = emptyBoard(variant);
}

// The API's verdict on `text` (the draft, or what was typed in the Board box) for `variant`:
// `{ position }` or `{ message }`, or null when a newer check has been asked for meanwhile.
export async function check(variant, text) {
  const asked = ++editor.asked;
  let verdict;
  try {
    verdict = { position: await byBoard(variant, text.trim()) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    verdict = { message: error.message };
  }
  return asked === editor.asked ? verdict : null;
}
