"""The engine wing: what carries the solver's passes over the tiers, on one machine or many,
and where their files live (the scratch folder, the storage, the exchange of images)."""
