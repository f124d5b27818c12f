"""CamRest676 with GECOR's annotation, replayed through examples/camrest/camrest.yaml.

Two figures, as ../shared/corpora/README.md defines them:

- **joint goal accuracy**: every dialogue is replayed turn by turn (its original ``transcript``s)
  in a fresh session; after each turn the tracked food / area / pricerange must equal the gold
  goal exactly. The gold goal after turn t is the union of the ``inform`` slots of turns 0..t,
  a later inform of a slot overriding an earlier one (GECOR's ``slu`` already repeats the goal so
  far in every turn; the union also keeps a slot a turn's annotation leaves out).
- **consistency**: for every turn t that has a ``transcript_with_ellipsis`` or a
  ``transcript_with_coreference``, turns 0..t-1 are replayed in their complete form, then turn t
  is said once complete and once in each incomplete form (each in its own session with the same
  history); each incomplete form is one comparison, and it holds when the tracked slots come out
  equal to those of the complete form. Whether they are *right* is not asked here.

**The tracked slots** are what the session holds for the three slots after the turn, as
``bot.session(id)`` shows them: the values of the tasks on the task stack (the active one on top,
a search suspended by a digression below it) over the values that earlier finished searches kept
(the bot file's slots have ``persist: session``). This is what a user of the framework would show
as "what the bot is searching for": a search that has run does not forget its wishes, a question
such as "what is their address?" (another flow) does not erase them, and a new search starts from
them. A cancelled search has dropped its values, and so has the bot. A slot the bot never filled is absent; the bot file's
no-preference value (``any``) counts as the corpus's ``dontcare``.

Also: the bot's load time (s) and every turn's wall-clock time (p50 / p99, ms).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from common import percentile, progress
from corpus_common import Dump, Measured

ROOT = Path(__file__).resolve().parent.parent
BOT_FILE = ROOT / "examples" / "camrest" / "camrest.yaml"
CORPUS_FILE = "camrest676_annotated_dev.json"
SLOTS = ("food", "area", "pricerange")
NO_PREFERENCE = {"any": "dontcare"}                 # the bot file's any value -> the corpus's word
INCOMPLETE = ("transcript_with_ellipsis", "transcript_with_coreference")
JGA = "joint goal accuracy %"
CONSISTENCY = "consistency %"

Goal = dict[str, str]


class Replay:
    """One loaded bot, a fresh session per replay, every turn timed."""

    def __init__(self, bot_file: Path) -> None:
        from dialogkit import Bot

        started = time.perf_counter()
        self.bot: Any = Bot.from_file(bot_file, store="memory://")
        self.load_s = time.perf_counter() - started
        self.turn_ms: list[float] = []
        self.errors = 0
        self._sessions = 0

    def session(self) -> str:
        self._sessions += 1
        return f"s{self._sessions}"

    def say(self, session: str, text: str) -> Goal:
        """The tracked slots after ``text``; a turn that raises counts as tracking nothing."""
        started = time.perf_counter()
        try:
            self.bot.handle(session, text)
        except Exception:
            self.errors += 1
            return {}
        finally:
            self.turn_ms.append((time.perf_counter() - started) * 1000)
        return self.tracked(session)

    def tracked(self, session: str) -> Goal:
        view = self.bot.session(session)
        held = dict(view.slots)
        for task in view.data.stack:                # bottom to top: the active task wins
            held.update(task.slots)
        return {k: NO_PREFERENCE.get(str(held[k]), str(held[k])) for k in SLOTS if held.get(k) is not None}


def gold_goals(dialogue: dict[str, Any]) -> list[Goal]:
    """The gold goal after each turn: the informs so far, later ones overriding."""
    goal: Goal = {}
    goals = []
    for turn in dialogue["dial"]:
        for act in turn["usr"]["slu"]:
            if act["act"] == "inform":
                goal.update({slot: value for slot, value in act["slots"] if slot in SLOTS})
        goals.append(dict(goal))
    return goals


def complete(turn: dict[str, Any]) -> str:
    return str(turn["usr"].get("transcript_complete") or turn["usr"]["transcript"])


def _miss(dialogue: int, turn: int, text: str, gold: Goal, predicted: Goal, measure: str) -> dict[str, Any]:
    return {"dialogue": dialogue, "turn": turn, "text": text, "gold": gold, "predicted": predicted,
            "measure": measure}


def joint_goal(replay: Replay, dialogue: dict[str, Any], misses: list[dict[str, Any]]) -> tuple[int, int]:
    """(turns whose tracked slots equal the gold goal, turns) for one dialogue."""
    session, hits = replay.session(), 0
    for turn, gold in zip(dialogue["dial"], gold_goals(dialogue), strict=True):
        text = str(turn["usr"]["transcript"])
        predicted = replay.say(session, text)
        if predicted == gold:
            hits += 1
        else:
            misses.append(_miss(dialogue["dialogue_id"], turn["turn"], text, gold, predicted, "jga"))
    return hits, len(dialogue["dial"])


def consistency(replay: Replay, dialogue: dict[str, Any], misses: list[dict[str, Any]]) -> tuple[int, int]:
    """(incomplete forms tracked like their complete turn, incomplete forms) for one dialogue."""
    turns = dialogue["dial"]
    complete_session, hits, pairs = replay.session(), 0, 0
    for t, turn in enumerate(turns):
        expected = replay.say(complete_session, complete(turn))
        for form in INCOMPLETE:
            text = str(turn["usr"].get(form) or "")
            if not text:
                continue
            session = replay.session()
            for earlier in turns[:t]:
                replay.say(session, complete(earlier))
            predicted = replay.say(session, text)
            pairs += 1
            if predicted == expected:
                hits += 1
            else:
                measure = "consistency-" + form.rsplit("_", 1)[1]
                misses.append(_miss(dialogue["dialogue_id"], turn["turn"], text, expected, predicted, measure))
    return hits, pairs


def _pct(hits: int, total: int) -> float:
    return round(100 * hits / total, 2) if total else 0.0


def measure(data: Path, *, subset: int | None = None, dump: Dump | None = None,
            bot_file: Path = BOT_FILE) -> Measured:
    """Replay ``data/camrest676_annotated_dev.json`` (the first ``subset`` dialogues when given)."""
    dialogues: list[dict[str, Any]] = json.loads((data / CORPUS_FILE).read_text(encoding="utf-8"))
    os.environ["CAMREST_DB"] = str(data / "CamRestDB.json")   # the search reads the --data copy, wherever the checkout is
    dialogues = dialogues[:subset] if subset is not None else dialogues
    with loadable(bot_file) as path:
        replay = Replay(path)
        misses: list[dict[str, Any]] = []
        jga, turns, same, pairs = 0, 0, 0, 0
        for done, dialogue in enumerate(dialogues, 1):
            hits, n = joint_goal(replay, dialogue, misses)
            jga, turns = jga + hits, turns + n
            hits, n = consistency(replay, dialogue, misses)
            same, pairs = same + hits, pairs + n
            progress("camrest676", done, len(dialogues))
    if dump is not None:
        for miss in misses:
            dump({"corpus": "camrest676", **miss})
    figures = {CONSISTENCY: _pct(same, pairs), JGA: _pct(jga, turns), "bot load s": round(replay.load_s, 3),
               "turn p50 ms": round(percentile(replay.turn_ms, 50), 3),
               "turn p99 ms": round(percentile(replay.turn_ms, 99), 3)}
    import dialogkit

    notes = [f"dialogkit from {Path(dialogkit.__file__).parent}", f"{len(dialogues)} dialogues, {turns} turns, {pairs} incomplete forms, {len(replay.turn_ms)} turns replayed"]
    if replay.errors:
        notes.append(f"{replay.errors} turns raised (counted as tracking nothing)")
    missed = [f"{m['dialogue']}/{m['turn']}/{m['measure']}" for m in misses]
    return Measured("camrest676", figures, missed, notes)


@contextmanager
def loadable(bot_file: Path) -> Iterator[Path]:
    """The bot file as the dialogkit being imported can load it.

    An older dialogkit (the bisection runs this bench against earlier commits) lacks keys added
    since: entity ``any:`` and ``execute.returns``. Its copy drops them, beside a copy of the
    actions module; the values themselves (``any`` included, by its aliases) stay.
    """
    from dialogkit.spec import schema

    dropped: list[tuple[str, str]] = []
    if "any" not in schema.EntityTypeSpec.model_fields:
        dropped.append(("entities", "any"))
    if "returns" not in schema.ExecuteSpec.model_fields:
        dropped.append(("flows", "returns"))
    if not dropped:
        yield bot_file
        return
    import yaml  # type: ignore[import-untyped]

    spec = yaml.safe_load(bot_file.read_text(encoding="utf-8"))
    for part, key in dropped:
        for item in spec[part].values():
            (item if part == "entities" else item.get("execute", {})).pop(key, None)
    with tempfile.TemporaryDirectory() as tmp:
        for module in bot_file.parent.glob("*.py"):
            shutil.copy(module, tmp)
        copy = Path(tmp) / bot_file.name
        copy.write_text(yaml.safe_dump(spec, allow_unicode=True, sort_keys=False), encoding="utf-8")
        yield copy
