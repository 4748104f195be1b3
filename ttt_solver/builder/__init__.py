"""Building databases: :mod:`.build` solves a variant (:mod:`ttt_solver.solver`) and writes it
all or nothing through the store, and :mod:`.first_use` is the one decision to build a small
one on first use. The only layer that writes a database; nothing that reads one imports it."""
