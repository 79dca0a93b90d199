"""The project form (`codeheal fix`): heal a function where it lives, in an existing project,
against the project's own test command. Everything the form owns is here: its input and
workspace (task, snapshot, workspace_store), where the defect is (suspicious, tracebacks,
repair_context), its candidates and edits (mutations, line_candidates, edits, realign), its
prompts (prompts), how a candidate is judged (candidate, failing_first, lint), a static
checker as a second specification (checker, check_runs, check_repairs, check_surface), and its outcome (diff, annotations); `form.ProjectForm` ties them to the loop."""
