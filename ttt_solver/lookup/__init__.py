"""Answers from a solved database: the :class:`~ttt_solver.lookup.oracle.Oracle` facade over one
source of rows chosen at load (:mod:`.source`: in memory, proved from the file, or
memory-mapped), what it answers (:mod:`.position`), the proof of each answer against the rows
one ply below it (:mod:`.proof`), and the dense tables behind the batch lookups
(:mod:`.tables`). Nothing here builds a database (:mod:`ttt_solver.builder.first_use` does)."""
