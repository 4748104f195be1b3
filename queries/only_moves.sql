-- Only-move positions: exactly one move keeps the value (of at least :min_choices moves).
--
-- param min_choices = 2: fewest legal moves a position must have (2 leaves out forced moves)
--
-- One row per canonical position; cells use the canonical board's numbering.
-- columns:
--   board       canonical board, text form (X, O, . row-major)
--   ply         marks on the board
--   to_move     X or O
--   outcome     win, draw or loss for the side to move with the only move
--   remoteness  plies to the end under perfect play
--   only_move   the one cell that keeps the value
--   choices     how many legal moves there are
--   orbit       how many real boards the row stands for
SELECT p.board,
       p.ply,
       p.to_move,
       CASE p.value WHEN 1 THEN 'win' WHEN 0 THEN 'draw' ELSE 'loss' END AS outcome,
       p.remoteness,
       MIN(CASE WHEN m.value = p.value THEN m.cell END) AS only_move,
       COUNT(*) AS choices,
       p.orbit
FROM positions AS p
JOIN moves AS m ON m.board = p.board
GROUP BY p.board
HAVING SUM(m.value = p.value) = 1 AND COUNT(*) >= :min_choices
ORDER BY p.ply, p.board
