-- Counts by ply and value: positions after each number of marks, won, drawn and lost.
--
-- Values are for the side to move; finished games count too (a won game is a loss for the side to move).
-- columns:
--   ply        marks on the board
--   to_move    X or O
--   boards     legal boards (canonical rows weighted by orbit)
--   wins       boards the side to move wins
--   draws      boards that are drawn
--   losses     boards the side to move loses
--   finished   boards where the game is over
--   canonical  canonical rows
SELECT ply,
       CASE ply % 2 WHEN 0 THEN 'X' ELSE 'O' END AS to_move, -- from ply: grouped by ply alone, each row's ply is computed once
       SUM(orbit) AS boards,
       SUM(CASE WHEN value = 1 THEN orbit ELSE 0 END) AS wins,
       SUM(CASE WHEN value = 0 THEN orbit ELSE 0 END) AS draws,
       SUM(CASE WHEN value = -1 THEN orbit ELSE 0 END) AS losses,
       SUM(CASE WHEN wins + draws + losses = 0 THEN orbit ELSE 0 END) AS finished,
       COUNT(*) AS canonical
FROM positions
GROUP BY ply
ORDER BY ply
