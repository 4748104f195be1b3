-- Only-move positions: exactly one move keeps the value (of at least :min_choices moves).
--
-- param min_choices = 2: fewest legal moves a position must have (2 leaves out forced moves)
--
-- One row per canonical position; cells use the canonical board's numbering. Answered from
-- each row's move counts, on every variant.
-- columns:
--   board       canonical board, text form (X, O, . row-major)
--   ply         marks on the board
--   to_move     X or O
--   outcome     win, draw or loss for the side to move with the only move
--   remoteness  plies to the end under perfect play
--   only_move   the one cell that keeps the value
--   choices     how many legal moves there are
--   orbit       how many real boards the row stands for
SELECT board,
       ply,
       to_move,
       CASE value WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS outcome,
       remoteness,
       CAST(best_moves AS INTEGER) AS only_move,
       wins + draws + losses AS choices,
       orbit
FROM positions
WHERE CASE value WHEN 1 THEN wins WHEN 0 THEN draws ELSE losses END = 1
  AND wins + draws + losses >= :min_choices
ORDER BY ply, board
