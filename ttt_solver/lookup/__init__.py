"""Answers from a solved database: the :class:`~ttt_solver.lookup.oracle.Oracle` facade over one
source of rows (:mod:`.rows`), the proof of each answer against the rows one ply below it
(:mod:`.proof`), and the dense tables behind the batch lookups (:mod:`.tables`)."""
