"""The loop's policy: the switches that decide how a run retries (`Policy`), and the named
presets a user picks one of. A named policy is applied as a unit (codeheal.context.resolve)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from codeheal.errors import ConfigError
from codeheal.settings.values import one_of, setting
from codeheal.state import FormName

PolicyName = Literal["adaptive", "one_shot", "resample", "raw_error", "self_heal", "sample_first", "hedged"]
FeedbackWhen = Literal["always", "informative", "by_kind"]


@dataclass(frozen=True, kw_only=True)
class Policy:
    """How a run retries: what a retry is shown, how it is sampled, when the run stops. A
    named preset (`Policy.preset`), with changes if any; a form may adjust it to what it can
    do (Form.policy_for: the project form cannot sample fresh). Build one with `preset`, or
    dataclasses.replace on one: the constructor's defaults are self_heal's, whatever the name."""

    name: PolicyName = setting(
        "self_heal",
        "The preset these switches start from (Context.policy describes each).",
    )
    feedback: bool = setting(
        True,
        "Show a failed attempt's failure (and the reflections) to the next attempt. Off: every "
        "attempt is written from the first attempt's prompt, an independent sample "
        "(plain resampling, the baseline healing must beat). The project form always shows it.",
    )
    feedback_when: FeedbackWhen = setting(
        "always",
        'With feedback on, which failures are shown. "always": every one. "informative": only '
        "a failed check that shows the wrong value (with the call that produced it) or a crash "
        "whose traceback reaches the code; after any other failure (a syntax error, a timeout, "
        "a check without values) the next attempt is a fresh sample. Module form only.",
    )
    fresh_attempts: int = setting(
        0,
        "How many retries are fresh samples (written from the first attempt's prompt) before "
        "any failure is shown. Module form only.",
    )
    hedge: bool = setting(
        False,
        "The first retry, when it is a fresh sample only because of fresh_attempts and the "
        "policy would show the failure, writes one of its retry_samples shown it and the rest "
        "fresh: the retry sees what failed, and the fresh samples keep their chance (a model "
        "that repeats a shown wrong value loses nothing). Needs retry_samples >= 2. Module form only.",
    )
    reflect: bool = setting(
        True,
        "Write a reflection after a failure that the next attempt is shown (with feedback on; "
        "in the project form always). Off: the actor sees only the raw failure (the ablation "
        "the HumanEval benchmark compares against).",
    )
    fresh_start: bool = setting(
        True,
        "When two attempts in a row fail the same way, the conversation is stuck: write the "
        "next attempt from the first attempt's prompt instead (a new sample, no failure shown). "
        'If that fails the same way too, the run ends with status "stuck". Module form only.',
    )
    retry_samples: int = setting(
        1,
        "Candidates the actor writes on each later attempt, at "
        "retry_temperature. They are tested in parallel and the first that passes (else the "
        "one that passes the most checks) is kept: small models tend to copy a failed attempt, and several samples "
        "escape that at the price of more tokens. The project form draws at least 2.",
    )
    temperature: float = setting(
        0.0,
        "Sampling temperature of the first attempt.",
    )
    retry_temperature: float = setting(
        0.7,
        "Sampling temperature of later attempts: some variety helps a retry "
        "escape the first attempt's mistake.",
    )
    temperature_step: float = setting(
        0.0,
        "Added to retry_temperature for each retry after the first (up to 1.0, "
        "rules.MAX_RETRY_TEMPERATURE): later samples vary more.",
    )
    seed: int | None = setting(
        None,
        "Seed of the model's sampling, for runs that repeat: each reply gets its own seed (the "
        "seed, plus 1000 per attempt after the first, plus the reply's place in its attempt), "
        "so a rerun draws the same samples, and two policies draw the same fresh samples where "
        "they ask the same prompt. Needs a server that honours `seed` (llama.cpp, so the "
        "embedded model, does; OpenAI's is best effort); each reply is then a request of its "
        "own. None: unseeded.",
    )
    show_failed_code: bool = setting(
        False,
        "Show the failed attempt's code in the retry prompt (module form). Off by default: "
        "the embedded 0.5B model mostly copies code it is shown, and healed 1 of 16 "
        "HumanEval failures with it against 6 of 16 without (codeheal_bench/scripts/retry_prompt.py; "
        "the retry still sees the failed checks and the reflections). Worth turning on for "
        "stronger models.",
    )
    stop_on_repeat: bool = setting(
        False,
        'End the run (status "stuck") when every candidate of an attempt had been tried '
        "before: sampling found nothing new. After fresh samples, the next retry is shown the "
        "failure first (if the policy shows it); a repair that repeats ends the run. The project "
        "form always stops. Off: such an "
        "attempt draws once more at the next retry's temperature, and the repeat is not tested again.",
    )
    memory: int = setting(
        5,
        "How many of the latest reflections the actor sees (0: none; then reflect must be off). "
        "The thread keeps them all.",
    )

    @classmethod
    def preset(cls, name: PolicyName, **changes: object) -> Policy:
        """The preset named `name`, with `changes` to its switches, e.g.
        Policy.preset("self_heal", reflect=False). ConfigError for a name that is no preset."""
        if name not in PRESETS:
            raise ConfigError(f"policy must be {one_of(tuple(PRESETS))}, got {name!r}")
        return dataclasses.replace(PRESETS[name], **changes)

    def changes(self) -> dict[str, object]:
        """The switches that differ from the preset this policy is named after (from
        self_heal's, the defaults, for a name that is no preset: Context refuses it)."""
        preset = PRESETS.get(self.name, Policy())
        return {k: v for k in SWITCHES if (v := getattr(self, k)) != getattr(preset, k)}


SWITCHES = tuple(f.name for f in dataclasses.fields(Policy) if f.name != "name")
"""The loop's switches: every field of Policy but its name."""
_SAMPLE_FIRST = Policy(name="sample_first", feedback_when="informative", fresh_attempts=2, reflect=False,
                       retry_samples=2, temperature_step=0.15, stop_on_repeat=True)
PRESETS: dict[str, Policy] = {
    "adaptive": Policy(name="adaptive", feedback_when="by_kind", temperature_step=0.15),
    "one_shot": Policy(name="one_shot"),
    "resample": Policy(name="resample", feedback=False),
    "raw_error": Policy(name="raw_error", reflect=False),
    "self_heal": Policy(name="self_heal"),
    "sample_first": _SAMPLE_FIRST,
    "hedged": dataclasses.replace(_SAMPLE_FIRST, name="hedged", hedge=True),
}
"""The named policies: the benchmark's conditions, and what a user gets by naming one."""
PRESET_LIMITS: dict[str, dict[str, object]] = {"one_shot": {"max_attempts": 1}}
"""Run settings a preset sets besides its switches: one_shot makes one attempt."""
DEFAULT_POLICY: PolicyName = "adaptive"
"""The default policy where no measurement chose another (default_policy): each retry routed
by what the failure tells, learned per model. A project (`codeheal fix`) has one starting
point and no fresh samples: its retries see the failure and a reflection, each later one at a
higher temperature (QuixBugs and the seeded bugs were measured so: docs/benchmarks.md)."""
MODULE_POLICIES: dict[str, PolicyName] = {"local": "hedged", "local-1.5b": "hedged", "local-0.5b": "hedged"}
"""The module form's default per model where it was measured. Each embedded model's is
`hedged`: two samples per retry, fresh first, the first retry writing one of its two shown the
failure (codeheal_bench/scripts/humaneval_models.py; docs/benchmarks.md). local-0.5b's was the preset with
the most hidden passes on the tuning slices of HumanEval and MBPP together at 3 attempts (78
against 75 for sample_first and raw_error), and held on common random numbers (159 against
158). local-1.5b's tuning winner, sample_first, tied hedged on every common-random-number run
(295 against 297); a non-inferiority test declared first, on MBPP problems never run before
(task ids 171-250), gave hedged 52 against 49, so the first retry sees its failure, as the
issue asks of the demo. Keyed by every name of a model: "local" is local-1.5b."""


def default_policy(model: str, form: FormName | None = None) -> PolicyName:
    """The policy a run with `model` gets when no setting names one: in the module form (or a
    form not known yet: a Context built in Python) MODULE_POLICIES's for the model, else
    DEFAULT_POLICY."""
    return MODULE_POLICIES.get(model, DEFAULT_POLICY) if form != "project" else DEFAULT_POLICY
