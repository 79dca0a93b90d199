"""Building blocks of `codeheal fix`: heal a function where it lives, in an existing project.

snapshot (the project as a workspace and its Python), edits (a model reply as targeted
edits), diff (the change as a patch, and writing it back), repair_context (what the actor
sees of a failure), model_window (how much context the model has)."""
