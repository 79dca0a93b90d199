"""The HumanEval (or MBPP) report from the per-problem records: the JSON summary, the Markdown
report with its failure analysis, and the plots of hidden pass rate against attempt index and
tokens."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codeheal import Breakdown
from codeheal_bench.humaneval_records import TIMINGS, Condition, ProblemRecord
from codeheal_bench.price import PRICE_LIST, attempt_price, attempt_seconds
from codeheal_bench.problems import Problem, slice_of
from codeheal_bench.report import Report, summed_breakdowns, time_line


@dataclass(frozen=True)
class SuiteText:
    """How the report names a problem set and its two kinds of tests."""

    title: str
    hidden: str
    visible: str


SUITES = {
    "humaneval": SuiteText("HumanEval", "HumanEval's official `check`", "the prompt's own examples"),
    "mbpp": SuiteText("MBPP", "all of MBPP's asserts for the problem", "the problem's first assert"),
}
"""The problem sets this report reads, by the name of their files (humaneval.Suite)."""
BUDGETS = (250, 500, 750, 1000, 1500, 2000, 3000, 4000, 6000)
"""Token budgets per problem at which the pass-rate-against-tokens curves are read."""
SECOND_BUDGETS = (5, 10, 20, 30, 60, 120)
"""Wall-second budgets per problem (model and sandbox seconds, prompt cache included): cost on
the embedded model as a user waits for it."""
PRICE_BUDGETS = (0.0001, 0.0002, 0.0005, 0.001)
"""USD budgets per problem at PRICE_LIST: cost on an API as a user pays for it."""
OWN_ASSERT = "the tests could not be loaded: AssertionError"
"""The model put its own top-level asserts into the module and one failed on import."""


def humaneval_report(
    problems: list[Problem], records: list[ProblemRecord], model: str, max_attempts: int,
    conditions: tuple[Condition, ...], settings: str = "", suite: str = "humaneval",
) -> Report:
    """SUITE.json, .md, .png and _tokens.png (humaneval.json, ...) for the selected problems and
    conditions (a condition not yet run on every problem counts its finished ones)."""
    chosen = {p.task_id for p in problems}
    by_condition = {c: [r for r in records if r["condition"] == c and r["task_id"] in chosen] for c in conditions}
    order = {p.task_id: n for n, p in enumerate(problems)}
    for rows in by_condition.values():
        rows.sort(key=lambda r: order[r["task_id"]])
    summary = {
        "problems": len(problems),
        "model": model,
        "max_attempts": max_attempts,
        "conditions": {c: condition_summary(c, by_condition, len(problems)) for c in conditions},
        "suite": suite,
    }
    analysis = {c: failure_analysis(by_condition[c]) for c in conditions}
    plots = {f"{suite}.png": lambda path: plot(summary, path), f"{suite}_tokens.png": lambda path: plot_tokens(summary, path)}
    return Report(suite, summary, markdown(summary, analysis, problems, settings), plots=plots)


def condition_summary(condition: Condition, by_condition: dict[str, list[ProblemRecord]], problems: int) -> dict:
    """Hidden and visible pass counts, attempts, wall time, tokens and the time split."""
    rows = by_condition[condition]
    cap = len(rows[0]["hidden_by_attempt"]) if rows else 0
    shared = sum(r["first_attempt"] == "shared" for r in rows)
    own_wall = wall_seconds(rows)
    # Attempt 1 of the healing conditions is one_shot's model call: its time is theirs too.
    wall = own_wall + (wall_seconds(by_condition["one_shot"]) if shared else 0.0)
    completions = sorted(a.get("completion_tokens", 0) for r in rows for a in r["attempt_log"])
    return {
        "passed": sum(r["hidden_passed"] for r in rows),
        "pass_at_1": round(sum(r["hidden_passed"] for r in rows) / problems, 4) if problems else 0.0,
        "slices": {name: slice_rate(rows, name) for name in ("tuning", "report")},
        "prompt_tokens": sum(r.get("prompt_tokens", 0) for r in rows),
        "completion_tokens": sum(r.get("completion_tokens", 0) for r in rows),
        "median_completion_tokens_per_attempt": completions[len(completions) // 2] if completions else 0,
        "hidden_pass_rate_by_budget": {str(b): pass_rate_within(rows, b, problems) for b in BUDGETS},
        "hidden_pass_rate_by_seconds": {str(b): pass_rate_within(rows, b, problems, attempt_seconds)
                                        for b in SECOND_BUDGETS},
        "price_usd": round(sum(attempt_price(a) for r in rows for a in _own_attempts(r)), 6),
        "hidden_pass_rate_by_price": {str(b): pass_rate_within(rows, b, problems, attempt_price) for b in PRICE_BUDGETS},
        "mean_attempts": round(sum(r["attempts"] for r in rows) / len(rows), 3) if rows else 0.0,
        "wall_s": round(wall, 1),
        "tokens": sum(r["tokens"] for r in rows),
        "finished": len(rows),
        "visible_passed": sum(r["status"] == "passed" for r in rows),
        "hidden_pass_rate_by_attempt": [
            round(sum(r["hidden_by_attempt"][k] for r in rows) / problems, 4) for k in range(cap)
        ],
        "first_attempt_shared": shared,
        "wall_s_own": round(own_wall, 1),
        "seconds_model": round(sum(r["seconds_model"] for r in rows), 1),
        "seconds_sandbox": round(sum(r["seconds_sandbox"] for r in rows), 1),
        "seconds_rest": round(sum(r["seconds_rest"] for r in rows), 1),
        "breakdown": condition_breakdown(rows, by_condition.get("one_shot", [])),
    }


def condition_breakdown(rows: list[ProblemRecord], one_shot: list[ProblemRecord]) -> Breakdown:
    """Where a condition's seconds went, summed over its problems: the model's prompt reading
    (tokens evaluated and reused from the server's cache) and writing, the sandbox, and the rest.
    A shared attempt 1 is one_shot's model call, so its model timings are added from one_shot's
    record, as `wall_s` adds its wall time; the re-test of that code is the condition's own."""
    first = {r["task_id"]: r.get("timings") or {} for r in one_shot}
    return summed_breakdowns([_record_breakdown(r, first.get(r["task_id"], {})) for r in rows])


def _record_breakdown(record: ProblemRecord, shared: Mapping[str, float]) -> Breakdown:
    own = record.get("timings") or {}
    model = {name: own.get(name, 0) + (shared.get(name, 0) if record["first_attempt"] == "shared" else 0)
             for name in TIMINGS}
    return Breakdown(**model, sandbox_seconds=record["seconds_sandbox"],  # type: ignore[typeddict-item]
                     overhead_seconds=record["seconds_rest"])


def slice_rate(rows: list[ProblemRecord], name: str) -> dict:
    """Hidden pass rate on the tuning slice (even task ids, where defaults are chosen) or the
    report slice (odd task ids, untouched by those choices), at the run's end and had each run
    stopped within each budget, and how often visible tests passed where hidden ones failed."""
    chosen = [r for r in rows if slice_of(r["task_id"]) == name]
    passed = sum(r["hidden_passed"] for r in chosen)
    return {
        "problems": len(chosen), "passed": passed, "rate": round(passed / len(chosen), 4) if chosen else 0.0,
        "visible_passed_hidden_failed": sum(r["status"] == "passed" and not r["hidden_passed"] for r in chosen),
        "tokens": sum(r["tokens"] for r in chosen),
        "hidden_pass_rate_by_budget": {str(b): pass_rate_within(chosen, b, len(chosen)) for b in BUDGETS},
        "hidden_pass_rate_by_seconds": {str(b): pass_rate_within(chosen, b, len(chosen), attempt_seconds)
                                        for b in SECOND_BUDGETS},
    }


def _tokens(attempt: Mapping[str, Any]) -> float:
    return attempt["tokens"]


def _own_attempts(record: ProblemRecord) -> list:
    """The attempts a condition paid for itself (a shared attempt 1 is one_shot's call)."""
    return record["attempt_log"][1:] if record["first_attempt"] == "shared" else record["attempt_log"]


def pass_rate_within(rows: list[ProblemRecord], budget: float, problems: int,
                     cost: Callable[[Mapping[str, Any]], float] = _tokens) -> float:
    """Hidden pass rate had each run stopped before its `cost` (tokens unless told: wall
    seconds, price) went over `budget`: the code it would have returned after its last attempt
    that fit (nothing if none did)."""
    passed = 0
    for r in rows:
        spent, fitting = 0.0, 0
        for attempt in r["attempt_log"]:
            spent += cost(attempt)
            if spent > budget:
                break
            fitting += 1
        if fitting:
            passed += r["hidden_by_attempt"][min(fitting, len(r["hidden_by_attempt"])) - 1]
    return round(passed / problems, 4) if problems else 0.0


def wall_seconds(rows: list[ProblemRecord]) -> float:
    """Time during which at least one problem of these was running: the union of their
    intervals, so pauses between an interrupted run and its resumption do not count."""
    total, end = 0.0, float("-inf")
    for start, finish in sorted((r["started_at"], r["finished_at"]) for r in rows):
        if start > end:
            total += finish - start
            end = finish
        elif finish > end:
            total += finish - end
            end = finish
    return total


def failure_analysis(rows: list[ProblemRecord]) -> dict[str, int]:
    """Counts of where the loop got stuck and where visible and hidden verdicts disagree."""
    counts: Counter[str] = Counter()
    for r in rows:
        log = r["attempt_log"]
        visible_ok = r["status"] == "passed"
        counts["hidden_failed"] += not r["hidden_passed"]
        counts["visible_failed"] += not visible_ok
        counts["visible_passed_hidden_failed"] += visible_ok and not r["hidden_passed"]
        counts["visible_passed_hidden_failed_no_examples"] += (
            visible_ok and not r["hidden_passed"] and r["visible_source"] == "none"
        )
        counts["visible_failed_hidden_passed"] += not visible_ok and r["hidden_passed"]
        counts["healed_visible"] += visible_ok and len(log) > 1
        counts["healed_visible_hidden_passed"] += visible_ok and len(log) > 1 and r["hidden_passed"]
        counts["hidden_fixed_by_retries"] += not r["hidden_by_attempt"][0] and r["hidden_passed"]
        counts["hidden_broken_by_retries"] += r["hidden_by_attempt"][0] and not r["hidden_passed"]
        if not visible_ok and len(log) > 1:
            counts["stuck_same_error_last_two"] += log[-1]["signature"] == log[-2]["signature"]
            counts["stuck_same_error_all"] += len({a["signature"] for a in log}) == 1
            counts["stuck_same_code_repeated"] += any(
                a["code_sha"] == b["code_sha"] for a, b in zip(log, log[1:])
            )
        counts["runs_with_timeout"] += any(a["kind"] == "timeout" for a in log)
        for earlier, attempt in enumerate(log[1:], start=1):
            counts["retry_candidates_tested"] += attempt.get("candidates_tested", 1)
            counts["retry_only_old_code"] += attempt["code_sha"] in {a["code_sha"] for a in log[:earlier]}
        for attempt in log:
            counts[f"attempts_{attempt['kind']}"] += 1
            counts["attempts_own_assert"] += attempt["signature"].startswith(OWN_ASSERT)
        counts["hidden_timeout"] += r["hidden_error"] == "timeout"
    return dict(counts)


ANALYSIS_ROWS = (
    ("hidden_failed", "hidden tests failed (final code)"),
    ("visible_failed", "visible tests never passed"),
    ("stuck_same_error_last_two", "- of those, last two attempts failed the same way"),
    ("stuck_same_error_all", "- of those, every attempt failed the same way"),
    ("stuck_same_code_repeated", "- of those, an attempt repeated the previous code exactly"),
    ("visible_failed_hidden_passed", "- of those, hidden passed anyway (wrong docstring example)"),
    ("visible_passed_hidden_failed", "visible passed but hidden failed"),
    ("visible_passed_hidden_failed_no_examples", "- of those, problems with no docstring example"),
    ("healed_visible", "visible passed only after a retry"),
    ("healed_visible_hidden_passed", "- of those, hidden passed too"),
    ("hidden_fixed_by_retries", "hidden failed at attempt 1, passed at the end"),
    ("hidden_broken_by_retries", "hidden passed at attempt 1, failed at the end"),
    ("retry_candidates_tested", "new candidates tested on retries (repeats of failed code are not rerun)"),
    ("retry_only_old_code", "retries whose every sample repeated code that had already failed"),
    ("runs_with_timeout", "runs with a timed-out attempt"),
    ("hidden_timeout", "final code timed out on the hidden test"),
    ("attempts_no_code", "attempts with no code in the reply"),
    ("attempts_syntax", "attempts with a syntax error"),
    ("attempts_crash", "attempts whose tests crashed or could not load"),
    ("attempts_own_assert", "- of those, the model's own top-level assert failed on import"),
    ("attempts_timeout", "attempts that timed out"),
    ("attempts_failed", "attempts that failed visible checks"),
)


def markdown(summary: dict, analysis: dict[str, dict[str, int]], problems: list[Problem], settings: str) -> str:
    """The report: results table, pass rate by attempt, visible tests, failure analysis."""
    n = summary["problems"]
    conditions = summary["conditions"]
    sources = Counter(p.visible_source for p in problems)
    lines = [
        f"# {SUITES[summary['suite']].title}: one shot, resampling and self-healing",
        "",
        f"Model `{summary['model']}`, {n} problems, up to {summary['max_attempts']} attempts for "
        f"the healing conditions. {settings}".rstrip(),
        "",
        f"Hidden = {SUITES[summary['suite']].hidden}, run once on the final code and never shown to the "
        f"loop. Visible = {SUITES[summary['suite']].visible}, the only tests the loop sees. `pass@1` is the "
        "hidden pass rate (a fraction). Attempt 1 is one model call shared by all conditions "
        "(same prompt, temperature 0): the others re-test one_shot's code as their attempt 1, and "
        "their `wall s` includes one_shot's wall time. Tuning slice: even task ids (where defaults "
        "are chosen); report slice: odd task ids.",
        "",
        "| condition | hidden passed | pass@1 | tuning | report | visible passed | mean attempts | tokens "
        "(prompt + completion) | median completion / attempt | wall s | model s | sandbox s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, c in conditions.items():
        tuning, report = c["slices"]["tuning"], c["slices"]["report"]
        lines.append(
            f"| {name} | {c['passed']}/{n} | {c['pass_at_1']:.3f} | {_rate(tuning)} | {_rate(report)} "
            f"| {c['visible_passed']}/{n} | {c['mean_attempts']:.2f} | {c['tokens']} ({c['prompt_tokens']} + "
            f"{c['completion_tokens']}) | {c['median_completion_tokens_per_attempt']} | {c['wall_s']:.0f} "
            f"| {c['seconds_model']:.0f} | {c['seconds_sandbox']:.0f} |"
        )
    lines += ["", "Where the seconds went (a shared attempt 1 counted in every condition, as in `wall s`):", ""]
    lines += [f"- {name}: {time_line(c['breakdown'])}" for name, c in conditions.items()]
    lines += [
        "",
        "Hidden pass rate at equal token budgets per problem (a run stopped before its tokens "
        "went over the budget returns its best attempt so far; see humaneval_tokens.png):",
        "",
        "| condition | " + " | ".join(f"{b} tok" for b in BUDGETS) + " |",
        "|---|" + "---|" * len(BUDGETS),
    ]
    for name, c in conditions.items():
        lines.append(f"| {name} | " + " | ".join(f"{c['hidden_pass_rate_by_budget'][str(b)]:.3f}" for b in BUDGETS) + " |")
    lines += ["", *cost_tables(conditions), "", *headline(conditions, analysis), "", *slice_tables(conditions)]
    cap = max(len(c["hidden_pass_rate_by_attempt"]) for c in conditions.values())
    lines += [
        "",
        "Hidden pass rate if the loop had stopped after k attempts (see humaneval.png):",
        "",
        "| condition | " + " | ".join(f"k={k}" for k in range(1, cap + 1)) + " |",
        "|---|" + "---|" * cap,
    ]
    for name, c in conditions.items():
        rates = c["hidden_pass_rate_by_attempt"]
        cells = [f"{rates[k]:.3f}" if k < len(rates) else "" for k in range(cap)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Visible tests",
        "",
        *(visible_sources(sources) if summary["suite"] == "humaneval" else ["- the first assert of each problem"]),
        f"- {sum(p.visible_count for p in problems)} visible checks in all",
        "",
        "## Failure analysis",
        "",
        "| count | " + " | ".join(conditions) + " |",
        "|---|" + "---|" * len(conditions),
    ]
    for key, label in ANALYSIS_ROWS:
        lines.append(f"| {label} | " + " | ".join(str(analysis[c].get(key, 0)) for c in conditions) + " |")
    return "\n".join(lines) + "\n"


def cost_tables(conditions: dict[str, dict]) -> list[str]:
    """Hidden pass rate at equal wall seconds per problem (the embedded model's seconds, its
    prompt cache included) and at equal price per problem (PRICE_LIST), with the total price."""
    lines = [
        "Hidden pass rate at equal wall time per problem (model and sandbox seconds; attempt 1 "
        "counts for every condition), and at equal price per problem at "
        f"{PRICE_LIST['name']} prices (${PRICE_LIST['input']}/M input, ${PRICE_LIST['cached_input']}/M "
        f"cached input, ${PRICE_LIST['output']}/M output; {PRICE_LIST['source']}):",
        "",
        "| condition | " + " | ".join(f"{b} s" for b in SECOND_BUDGETS) + " | "
        + " | ".join(f"${b}" for b in PRICE_BUDGETS) + " | price of its own calls |",
        "|---|" + "---|" * (len(SECOND_BUDGETS) + len(PRICE_BUDGETS) + 1),
    ]
    for name, c in conditions.items():
        if "hidden_pass_rate_by_seconds" not in c:
            continue
        seconds = " | ".join(f"{c['hidden_pass_rate_by_seconds'][str(b)]:.3f}" for b in SECOND_BUDGETS)
        price = " | ".join(f"{c['hidden_pass_rate_by_price'][str(b)]:.3f}" for b in PRICE_BUDGETS)
        lines.append(f"| {name} | {seconds} | {price} | ${c['price_usd']:.4f} |")
    return lines


def _rate(part: dict) -> str:
    return f"{part['rate']:.3f}" if part["problems"] else "n/a"


def slice_tables(conditions: dict[str, dict]) -> list[str]:
    """Per slice that holds problems: pass rate at the budgets from 1,000 tokens up and at the
    wall-second budgets, tokens, and the runs whose visible tests passed while the hidden ones
    failed."""
    shown = [b for b in BUDGETS if b >= 1000]
    lines = []
    for name in ("tuning", "report"):
        if not any(c["slices"][name]["problems"] for c in conditions.values()):
            continue
        problems = max(c["slices"][name]["problems"] for c in conditions.values())
        lines += [
            f"The {name} slice ({problems} problems): hidden pass rate at equal budgets per problem, tokens, "
            "and visible passed / hidden failed:",
            "",
            "| condition | " + " | ".join(f"{b} tok" for b in shown) + " | "
            + " | ".join(f"{b} s" for b in SECOND_BUDGETS) + " | tokens | visible pass, hidden fail |",
            "|---|" + "---|" * (len(shown) + len(SECOND_BUDGETS) + 2),
        ]
        for condition, c in conditions.items():
            part = c["slices"][name]
            rates = " | ".join(f"{part['hidden_pass_rate_by_budget'][str(b)]:.3f}" for b in shown)
            seconds = " | ".join(f"{part.get('hidden_pass_rate_by_seconds', {}).get(str(b), 0.0):.3f}"
                                 for b in SECOND_BUDGETS)
            lines.append(f"| {condition} | {rates} | {seconds} | {part['tokens']} | "
                         f"{part['visible_passed_hidden_failed']} |")
        lines.append("")
    return lines


def headline(conditions: dict[str, dict], analysis: dict[str, dict[str, int]]) -> list[str]:
    """One line per healing condition: its gain over one shot and where it came from."""
    base = conditions["one_shot"]
    lines = []
    for name in [c for c in conditions if c != "one_shot"]:
        c, a = conditions[name], analysis[name]
        points = 100 * (c["pass_at_1"] - base["pass_at_1"])
        lines.append(
            f"- {name}: {points:+.1f} points of hidden pass@1 over one_shot; retries made the "
            f"visible tests pass on {a.get('healed_visible', 0)} problems (hidden passed on "
            f"{a.get('healed_visible_hidden_passed', 0)} of them), turned {a.get('hidden_fixed_by_retries', 0)} "
            f"hidden failures into passes and {a.get('hidden_broken_by_retries', 0)} passes into failures."
        )
    return lines


def visible_sources(sources: Counter) -> list[str]:
    """Where HumanEval's visible tests came from, per problem."""
    return [
        f"- from `>>>` doctests: {sources['doctest']} problems",
        f"- from inline examples (`f(x) == y`, `=>`, `➞`, `returns`, `should return`): {sources['inline']} problems",
        f"- no usable example: {sources['none']} problems; their only visible check is that the module imports "
        "and defines the entry point, so the loop cannot tell right from wrong there",
    ]


def plot(summary: dict, path: Path) -> None:
    """Hidden pass rate against attempt index, one line per condition."""
    cap = summary["max_attempts"]

    def draw(axes) -> None:
        for name, c in summary["conditions"].items():
            rates = [100 * r for r in c["hidden_pass_rate_by_attempt"]]
            if len(rates) == 1:
                axes.plot(range(1, cap + 1), rates * cap, linestyle="--", label=f"{name} (1 attempt)")
            else:
                axes.plot(range(1, len(rates) + 1), rates, marker="o", label=name)
        axes.set_xlabel("attempt index (stop after k attempts)")
        axes.set_xticks(range(1, cap + 1))

    _save_figure(draw, f"{SUITES[summary['suite']].title} ({summary['problems']} problems), {summary['model']}", path)


def plot_tokens(summary: dict, path: Path) -> None:
    """Hidden pass rate against the token budget per problem, one curve per condition."""

    def draw(axes) -> None:
        for name, c in summary["conditions"].items():
            axes.plot(BUDGETS, [100 * c["hidden_pass_rate_by_budget"][str(b)] for b in BUDGETS], marker="o", label=name)
        axes.set_xlabel("token budget per problem (prompt + completion)")

    _save_figure(draw, f"{SUITES[summary['suite']].title} ({summary['problems']} problems): pass rate at equal budgets", path)


def _save_figure(draw, title: str, path: Path) -> None:
    """A hidden-pass-rate chart: `draw` adds the lines and the x axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    draw(axes)
    axes.set_ylabel("hidden pass rate, %")
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
