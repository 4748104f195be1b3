-- Every position after :ply marks, with its value, remoteness and best moves.
--
-- param ply (int): how many marks are on the board (0-9 on 3x3); required
--
-- One row per canonical position; cells use the canonical board's numbering.
-- columns:
--   board       canonical board, text form (X, O, . row-major)
--   to_move     X or O
--   outcome     win, draw or loss for the side to move (a finished game: loss if it was won, draw if full)
--   remoteness  plies to the end under perfect play (0 when the game is over)
--   best_moves  cells that keep the value, comma-separated (empty when the game is over)
--   orbit       how many real boards the row stands for
SELECT board,
       to_move,
       CASE value WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS outcome,
       remoteness,
       best_moves,
       orbit
FROM positions
WHERE ply = :ply
ORDER BY value DESC, CASE WHEN value = 1 THEN remoteness ELSE -remoteness END, board
