"""The builder layer: solving a variant into a database, and the one decision to build a
small one on first use (:mod:`.first_use`)."""
