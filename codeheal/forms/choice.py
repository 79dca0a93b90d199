"""The forms of a run, each one strategy object (see base.Form): `module` writes a module
against tests, `project` heals a project against its test command. `choose_form` is the one
place that tells them apart, by the input; the run keeps the form's name in state."""

from __future__ import annotations

from codeheal.forms.base import Form
from codeheal.forms.module.form import ModuleForm
from codeheal.forms.project.form import ProjectForm
from codeheal.state import FormName

FORMS: dict[FormName, Form] = {form.name: form for form in (ModuleForm(), ProjectForm())}

__all__ = ["FORMS", "Form", "choose_form", "form_of"]


def choose_form(project: str | None) -> Form:
    """The form a run's input asks for: a project folder makes it the project form."""
    return FORMS["project" if project else "module"]


def form_of(name: FormName) -> Form:
    """The form prepare chose for a run, by the name it keeps (State.form, a candidate's test
    job's `form`, a checkpoint's values' "form")."""
    return FORMS[name]
