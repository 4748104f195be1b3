-- Traps: positions not lost where most moves (and at least :min_losing) lose.
--
-- param min_losing = 3: fewest losing moves a position must have
--
-- One row per canonical position, the largest share of losing moves first; cells use the
-- canonical board's numbering.
-- columns:
--   board       canonical board, text form (X, O, . row-major)
--   ply         marks on the board
--   to_move     X or O, the side that can fall into the trap
--   outcome     win or draw: what perfect play still gets
--   choices     legal moves
--   losing      moves that lose
--   keeping     moves that keep the outcome
--   best_moves  the cells that keep it, comma-separated
--   orbit       how many real boards the row stands for
SELECT p.board,
       p.ply,
       p.to_move,
       CASE p.value WHEN 1 THEN 'win' ELSE 'draw' END AS outcome,
       COUNT(*) AS choices,
       SUM(m.value = -1) AS losing,
       SUM(m.value = p.value) AS keeping,
       p.best_moves,
       p.orbit
FROM positions AS p
JOIN moves AS m ON m.board = p.board
WHERE p.value >= 0
GROUP BY p.board
HAVING SUM(m.value = -1) >= :min_losing AND 2 * SUM(m.value = -1) > COUNT(*)
ORDER BY 1.0 * SUM(m.value = -1) / COUNT(*) DESC, p.ply, p.board
