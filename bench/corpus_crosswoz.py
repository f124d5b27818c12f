"""CrossWOZ's validation dialogues, replayed through the bot built from examples/crosswoz/.

Every dialogue is one session; its user turns are said in order (the human system's turns are not
fed, and the bot's own replies are ignored). A turn is named by its index among the dialogue's
messages, so a miss's id is ``<dialogue>/<message index>/<measure>``.

- **inform F1** (with precision and recall): the gold triples of a turn are its dialog acts of
  intent ``Inform``, as (domain, slot, value); a hotel facility, annotated
  ``(酒店, 酒店设施-X, 是)``, counts as ``(酒店, 酒店设施, X)``. The bot's triples are the slot
  values it set or changed in that turn, in any task: each task on the session's stack after the
  turn, and each task whose action ran in the turn, against that task's values before the turn
  (none for a task begun in it). A list slot's value is several triples, one per value, and a turn
  gives those its list did not hold before ("再加一个健身房" gives the gym alone). A task's flow names its domain and its slot names map to the
  corpus's (``FLOWS``); a near slot's value, the place a search looks around, is that place's own
  name, as the corpus annotates it. Counted over all turns, micro-averaged.
- **domain accuracy**: over the user turns whose dialog acts (``General`` ones aside) name exactly
  one domain. The bot's domain after a turn is the flow of the task whose action ran in it (a
  search answers at once and ends), else the active flow, else the flow the session was last on
  (a question about the last search's result leaves the bot on that search, as it does the user).
- **values** compare after normalisation: NFKC (full-width brackets and digits as half-width),
  lower case, no white space, no 分 right after a digit (``4.5分以上`` and ``4.5以上`` are one
  rating), and 到 / 至 / ~ between two amounts written ``-`` (``2小时到3小时`` is ``2小时 - 3小时``).
  Slot values are the bot's canonical values (a name as the database writes it).

Also: the bot's load time (s, the generated bot file, not its generation) and every turn's
wall-clock time (p50 / p99, ms).

    .venv/bin/python bench/corpus_crosswoz.py --data ../shared/corpora [--subset N] [--dump FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import percentile, progress
from corpus_common import Dump, Measured

from examples.crosswoz import crosswoz_actions
from examples.crosswoz.build_values import MissingData, build

CORPUS = "crosswoz"
DIALOGUES = "val.json.zip"
SUBSET = 60                      # the ratchet's fixed subset: the first 60 dialogues (~520 turns)
F1, PRECISION, RECALL = "inform F1 %", "inform precision %", "inform recall %"
DOMAIN = "domain accuracy %"
FACILITY = "酒店设施"

# The place a search looks around ("天安门广场周边的酒店") is annotated as that place's own name:
# (景点, 名称, 天安门广场). A near slot's value counts so.
NEAR_NAMES = {"near_restaurant": ("餐馆", "名称"), "near_hotel": ("酒店", "名称"), "near_attraction": ("景点", "名称")}

# flow -> (its CrossWOZ domain, its slot names -> CrossWOZ slot names, or (domain, slot) for a near slot)
FLOWS: dict[str, tuple[str, dict[str, str | tuple[str, str]]]] = {
    "find_restaurant": ("餐馆", {"name": "名称", "dish": "推荐菜", "price": "人均消费", "rating": "评分",
                               "near_attraction": NEAR_NAMES["near_attraction"],
                               "near_hotel": NEAR_NAMES["near_hotel"]}),
    "find_hotel": ("酒店", {"name": "名称", "hotel_type": "酒店类型", "facility": FACILITY, "price": "价格",
                            "rating": "评分", "near_attraction": NEAR_NAMES["near_attraction"],
                            "near_restaurant": NEAR_NAMES["near_restaurant"]}),
    "find_attraction": ("景点", {"name": "名称", "ticket": "门票", "duration": "游玩时间", "rating": "评分",
                               "near_restaurant": NEAR_NAMES["near_restaurant"],
                               "near_hotel": NEAR_NAMES["near_hotel"]}),
    "metro_route": ("地铁", {"origin": "出发地", "destination": "目的地"}),
    "call_taxi": ("出租", {"origin": "出发地", "destination": "目的地"}),
}
ACTION_FLOWS = {"search_restaurant": "find_restaurant", "search_hotel": "find_hotel",
                "search_attraction": "find_attraction", "metro_route": "metro_route", "call_taxi": "call_taxi"}

Triple = tuple[str, str, str]
Tasks = dict[str, tuple[str, dict[str, Any]]]          # task id -> (flow, slot values)
_UNIT_AFTER_DIGIT = re.compile(r"(?<=\d)分")
_RANGE = re.compile(r"(?<=[\d时天元])(?:到|至|~)(?=\d)")


def normalise(value: Any) -> str:
    text = "".join(unicodedata.normalize("NFKC", str(value)).lower().split())
    return _RANGE.sub("-", _UNIT_AFTER_DIGIT.sub("", text))


def gold_informs(acts: Iterable[list[str]]) -> set[Triple]:
    """The (domain, slot, value) triples a user turn's ``Inform`` acts give."""
    out: set[Triple] = set()
    for intent, domain, slot, value in acts:
        if intent != "Inform":
            continue
        if slot.startswith(FACILITY + "-"):
            slot, value = FACILITY, slot[len(FACILITY) + 1:]
        out.add((domain, slot, normalise(value)))
    return out


def gold_domain(acts: Iterable[list[str]]) -> str | None:
    """The one domain a turn's acts name, or None when they name none or several."""
    domains = {domain for intent, domain, _slot, _value in acts if intent != "General"}
    return domains.pop() if len(domains) == 1 else None


def new_values(value: Any, held: Any) -> list[Any]:
    """The values a slot holds that it did not hold before: a list slot's values not in its old list,
    another slot's value when it changed."""
    if not isinstance(value, list):
        return [value] if value is not None and value != held else []
    old = held if isinstance(held, list) else [held]
    return [v for v in value if v not in old]


def changed(before: Tasks, after: Tasks) -> set[Triple]:
    """The triples of the values each task in ``after`` holds that it did not hold in ``before``."""
    out: set[Triple] = set()
    for task, (flow, slots) in after.items():
        domain, names = FLOWS.get(flow, ("", {}))
        held = before.get(task, (flow, {}))[1]
        for slot, value in slots.items():
            if slot in names:
                named = names[slot]
                where, what = named if isinstance(named, tuple) else (domain, named)
                out |= {(where, what, normalise(v)) for v in new_values(value, held.get(slot))}
    return out


@dataclass
class Turn:
    dialogue: str
    index: int
    text: str
    acts: list[list[str]]


def dialogues(folder: Path, subset: int | None = None) -> Iterator[list[Turn]]:
    """The user turns of each validation dialogue, in the corpus's order (the first ``subset``)."""
    path = folder / DIALOGUES
    if not path.is_file():
        raise MissingData(f"no CrossWOZ dialogues at {path}")
    with zipfile.ZipFile(path) as archive:
        corpus: dict[str, Any] = json.loads(archive.read(archive.namelist()[0]))
    for name in list(corpus)[:subset]:
        messages = corpus[name]["messages"]
        yield [Turn(name, i, m["content"], m["dialog_act"]) for i, m in enumerate(messages) if m["role"] == "usr"]


class Replay:
    """One loaded bot, one session per dialogue, every turn timed."""

    def __init__(self, bot: Any, load_s: float = 0.0) -> None:
        self.bot = bot
        self.load_s = load_s
        self.turn_ms: list[float] = []
        self.errors = 0

    @classmethod
    def load(cls, bot_file: Path) -> Replay:
        from dialogkit import Bot

        started = time.perf_counter()
        bot = Bot.from_file(bot_file, store="memory://")
        return cls(bot, time.perf_counter() - started)

    def say(self, session: str, text: str, before: Tasks) -> tuple[Tasks, set[Triple], str | None]:
        """Say ``text``: the session's tasks after it, the triples it set or changed, and the flow it
        leaves the bot on (None: IDLE, nothing ran). A turn that raises sets nothing."""
        started = time.perf_counter()
        try:
            reply = self.bot.handle(session, text)
        except Exception:
            self.errors += 1
            return before, set(), None
        finally:
            self.turn_ms.append((time.perf_counter() - started) * 1000)
        stack: Tasks = {t.id: (t.flow, dict(t.slots)) for t in self.bot.session(session).data.stack}
        seen, ran = dict(stack), []
        for run in reply.actions:
            flow = ACTION_FLOWS.get(run.name)
            if flow is not None:
                ran.append(flow)
                task = next((t for t, (f, _) in before.items() if f == flow and t not in seen), f"ran:{len(ran)}")
                seen[task] = (flow, dict(run.inputs))
        return stack, changed(before, seen), ran[-1] if ran else reply.flow


@dataclass
class Score:
    """Counts of both measures, and every miss as a JSON-able dict."""

    hits: int = 0
    predicted: int = 0
    gold: int = 0
    right: int = 0
    counted: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)

    def inform(self, turn: Turn, predicted: set[Triple]) -> None:
        gold = gold_informs(turn.acts)
        self.hits += len(gold & predicted)
        self.predicted += len(predicted)
        self.gold += len(gold)
        if gold != predicted:
            self._miss(turn, "inform", sorted(gold), sorted(predicted))

    def domain(self, turn: Turn, predicted: str | None) -> None:
        gold = gold_domain(turn.acts)
        if gold is None:
            return
        self.counted += 1
        self.right += gold == predicted
        if gold != predicted:
            self._miss(turn, "domain", gold, predicted)

    def _miss(self, turn: Turn, measure: str, gold: Any, predicted: Any) -> None:
        self.misses.append({"corpus": CORPUS, "dialogue": turn.dialogue, "turn": turn.index, "text": turn.text,
                            "measure": measure, "gold": gold, "predicted": predicted})

    def figures(self) -> dict[str, float]:
        precision, recall = _ratio(self.hits, self.predicted), _ratio(self.hits, self.gold)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {F1: _pct(f1), PRECISION: _pct(precision), RECALL: _pct(recall),
                DOMAIN: _pct(_ratio(self.right, self.counted))}


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _pct(ratio: float) -> float:
    return round(100 * ratio, 2)


def replay_dialogue(replay: Replay, turns: list[Turn], score: Score) -> None:
    """Say one dialogue's user turns in order, in a session of its own, and score each."""
    tasks: Tasks = {}
    last: str | None = None
    for turn in turns:
        tasks, triples, flow = replay.say(turn.dialogue, turn.text, tasks)
        last = flow or last
        score.inform(turn, triples)
        score.domain(turn, FLOWS[last][0] if last in FLOWS else None)


def measure(data: Path, *, subset: int | None = None, dump: Dump | None = None) -> Measured:
    """Replay the validation dialogues under ``data`` (the corpora folder or the crosswoz folder;
    the first ``subset`` when given). A missing folder raises ``MissingData`` saying where it looked."""
    folder = data / CORPUS if (data / CORPUS).is_dir() else data
    if not folder.is_dir():
        raise MissingData(f"no CrossWOZ corpus at {data}")
    started = time.perf_counter()
    bot_file = build(folder)
    crosswoz_actions.use_database(folder)
    built_s = time.perf_counter() - started
    replay, score = Replay.load(bot_file), Score()
    chosen = list(dialogues(folder, subset))
    for done, turns in enumerate(chosen, 1):
        replay_dialogue(replay, turns, score)
        progress(CORPUS, done, len(chosen))
    if dump is not None:
        for miss in score.misses:
            dump(miss)
    figures = {**score.figures(), "bot load s": round(replay.load_s, 3),
               "turn p50 ms": round(percentile(replay.turn_ms, 50), 3),
               "turn p99 ms": round(percentile(replay.turn_ms, 99), 3)}
    notes = [f"{len(chosen)} dialogues, {len(replay.turn_ms)} user turns, {score.gold} gold informs, "
             f"{score.counted} turns of one domain; bot file generated in {built_s:.2f} s"]
    if replay.errors:
        notes.append(f"{replay.errors} turns raised (counted as setting nothing)")
    missed = [f"{m['dialogue']}/{m['turn']}/{m['measure']}" for m in score.misses]
    return Measured(CORPUS, figures, missed, notes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Replay CrossWOZ's validation dialogues through the CrossWOZ bot.")
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpora")
    parser.add_argument("--subset", type=int, default=None, help=f"the first N dialogues (the ratchet: {SUBSET})")
    parser.add_argument("--dump", type=Path, default=None, help="write every miss here, one JSON line each")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    lines: list[str] = []
    try:
        result = measure(args.data, subset=args.subset,
                         dump=(lambda miss: lines.append(json.dumps(miss, ensure_ascii=False))) if args.dump else None)
    except MissingData as exc:
        print(f"crosswoz: {exc}; nothing measured")
        return 0
    if args.dump:
        args.dump.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    for name, value in result.figures.items():
        print(f"{name}: {value}")
    print("\n".join([*result.notes, f"{len(result.missed)} misses; {time.perf_counter() - started:.1f} s in all"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
