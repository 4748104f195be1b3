-- The longest forced wins: won positions with the most plies to the end.
--
-- param limit = 10: how many positions to show
--
-- One row per canonical position, longest first; cells use the canonical board's numbering.
-- columns:
--   board       canonical board, text form (X, O, . row-major)
--   ply         marks on the board
--   to_move     X or O, the side that wins
--   remoteness  plies to the end when the loser holds out longest
--   best_moves  cells that keep the win, comma-separated
--   orbit       how many real boards the row stands for
SELECT board, ply, to_move, remoteness, best_moves, orbit
FROM positions
WHERE value = 1
ORDER BY remoteness DESC, ply, board
LIMIT :limit
