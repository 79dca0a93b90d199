"""The forms of a run, one package each: `module` (`codeheal solve`) and `project` (`codeheal fix`).
`choice` picks one by the input; `base.Form` is what every form answers."""
