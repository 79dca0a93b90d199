"""The parts of a run's settings below `codeheal.context`: the loop's policy and its presets
(`presets`), reading a setting's value from text and checking it (`values`), and the
combinations refused (`checks`). `codeheal.context` resolves them into one Context."""
