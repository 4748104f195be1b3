// What the page derives itself from a board text and the API's answers: completed lines, the
// two named sets of moves, the moves grouped by result, and the plies that threw value away.
// Values are +1 win, 0 draw, -1 loss for the side to move (as in the API); positions and
// moves are the API's objects, moves best first.

export const EMPTY = ".";

export function other(mark) {
  return mark === "X" ? "O" : "X";
}

export function place(board, cell, mark) {
  return board.slice(0, cell) + mark + board.slice(cell + 1);
}

export function emptyBoard(variant) {
  return EMPTY.repeat(variant.cells);
}

// Every line of k cells in a row, column or diagonal (as the Variant class makes them).
export function lines(variant) {
  const { rows, cols, k } = variant;
  const found = [];
  for (const [dr, dc] of [[0, 1], [1, 0], [1, 1], [1, -1]]) {
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const endR = r + dr * (k - 1), endC = c + dc * (k - 1);
        if (endR < 0 || endR >= rows || endC < 0 || endC >= cols) continue;
        found.push(Array.from({ length: k }, (_, i) => (r + dr * i) * cols + c + dc * i));
      }
    }
  }
  return found;
}

// The cells of every completed line on the board (the winner's, or in misère the loser's).
export function completedCells(board, variant) {
  const cells = new Set();
  for (const line of lines(variant)) {
    const mark = board[line[0]];
    if (mark !== EMPTY && line.every((cell) => board[cell] === mark)) line.forEach((cell) => cells.add(cell));
  }
  return cells;
}

// The preferred moves: the best moves with the best remoteness (value first, then remoteness:
// win fastest, draw or lose slowest), what a perfect player picks among. Moves come best first.
export function preferred(position) {
  const top = position.moves[0];
  return position.moves.filter((m) => top && m.value === top.value && m.remoteness === top.remoteness);
}

// The moves by their result for the side to move: wins, then draws, then losses (each kept
// in the API's order, best first); empty groups left out.
export function groupByResult(position) {
  return [1, 0, -1]
    .map((value) => ({ value, moves: position.moves.filter((m) => m.value === value) }))
    .filter((group) => group.moves.length);
}

// The plies already played on a board.
export function plyOf(board) {
  return board.replaceAll(EMPTY, "").length;
}

// Which moves threw value away: the mover's move is worth less than the position was. `index`
// counts moves from the first position given, `ply` from the empty board.
export function mistakes(positions, moves) {
  const found = [];
  const ply0 = positions.length ? plyOf(positions[0].board) : 0;
  for (let i = 0; i < moves.length && i + 1 < positions.length; i++) {
    const before = positions[i];
    const played = before.moves.find((m) => m.cell === moves[i]);
    if (played && played.value < before.value) {
      found.push({ index: i + 1, ply: ply0 + i + 1, mover: before.to_move, cell: moves[i], from: before.value, to: played.value });
    }
  }
  return found;
}
