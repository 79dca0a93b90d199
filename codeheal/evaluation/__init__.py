"""Judging a candidate: the user's tests as a pytest module, the sandbox jobs, the report
plugin that runs inside the sandbox, the tamper scan, pyflakes notes, and the Feedback the host
forms from the report."""
