"""`codeheal lsp`: a language server over the same graph and model settings as the CLI.

Failing tests become diagnostics where they fail (`diagnostics.py`), a heal becomes an edit
the editor applies and can undo (`edits.py`); runs of the graph are in `runs.py`, what the
editor configures (trusted folders, the test command) in `options.py`, the protocol's
wiring in `server.py`."""
