-- Traps: positions not lost where most moves (and at least :min_losing) lose.
--
-- param min_losing = 3: fewest losing moves a position must have
--
-- One row per canonical position, the largest share of losing moves first; cells use the
-- canonical board's numbering. Answered from each row's move counts, on every variant.
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
SELECT board,
       ply,
       to_move,
       CASE value WHEN 1 THEN 'win' ELSE 'draw' END AS outcome,
       wins + draws + losses AS choices,
       losses AS losing,
       CASE value WHEN 1 THEN wins ELSE draws END AS keeping,
       best_moves,
       orbit
FROM positions
WHERE value >= 0 AND losses >= :min_losing AND 2 * losses > wins + draws + losses
ORDER BY 1.0 * losses / (wins + draws + losses) DESC, ply, board
