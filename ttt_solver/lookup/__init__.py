"""Answers from a solved database: the :class:`~ttt_solver.lookup.oracle.Oracle` facade over one
source of rows chosen at load (:mod:`.source`: in memory, or proved from the file), what it
answers (:mod:`.position`), the proof of each answer against the rows one ply below it
(:mod:`.proof`), and a database's whole table behind the batch lookups (:mod:`.whole_table`:
:mod:`.tables`, memory-mapped for a big database by :mod:`.mapped`). Only the whole-table
modules import numpy. Nothing here builds a database (:mod:`ttt_solver.builder.first_use` does)."""
