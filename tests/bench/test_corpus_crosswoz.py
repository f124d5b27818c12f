"""bench/corpus_crosswoz.py scores what a bot set in a turn against the turn's Inform acts, and the
domain it is on against the one domain the turn's acts name. The dialogues and the database here
are made up in the corpus's format; none is the corpus's."""

from __future__ import annotations

import json
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dialogkit.model.reply import ActionRun
from dialogkit.model.session import Task

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import corpus_crosswoz as cw  # noqa: E402

from examples.crosswoz import build_values  # noqa: E402

RESTAURANT = "find_restaurant"


def test_informs_are_triples_and_a_facility_is_its_own_value() -> None:
    acts = [["General", "greet", "none", "none"], ["Inform", "餐馆", "推荐菜", "酸菜鱼"],
            ["Request", "餐馆", "地址", ""], ["Inform", "酒店", "酒店设施-棋牌室", "是"]]
    assert cw.gold_informs(acts) == {("餐馆", "推荐菜", "酸菜鱼"), ("酒店", "酒店设施", "棋牌室")}


def test_values_compare_without_width_spaces_or_the_rating_unit() -> None:
    assert cw.normalise("老王面馆（东门店）") == cw.normalise("老王面馆(东门店)")
    assert cw.normalise("2小时 - 3小时") == cw.normalise("2小时到3小时") == "2小时-3小时"
    assert cw.normalise("4.5分以上") == cw.normalise("4.5以上")
    assert cw.normalise("100-150元") != cw.normalise("100-200元")


def test_a_turn_counts_for_the_domain_when_its_acts_name_one() -> None:
    assert cw.gold_domain([["General", "thank", "none", "none"], ["Request", "景点", "门票", ""]]) == "景点"
    assert cw.gold_domain([["Inform", "景点", "名称", "白塔寺"], ["Request", "酒店", "名称", ""]]) is None
    assert cw.gold_domain([["General", "bye", "none", "none"]]) is None


def test_only_values_set_or_changed_count() -> None:
    before = {"t1": (RESTAURANT, {"dish": "酸菜鱼", "rating": "4分以上"})}
    after: cw.Tasks = {"t1": (RESTAURANT, {"dish": "酸菜鱼", "rating": "5分", "price": None}),
             "t2": ("call_taxi", {"origin": "白塔寺", "note": "快点"})}
    assert cw.changed(before, after) == {("餐馆", "评分", "5"), ("出租", "出发地", "白塔寺")}


def test_the_place_a_search_looks_around_counts_as_that_places_own_name() -> None:
    """"天安门广场周边的酒店" is annotated (景点, 名称, 天安门广场): the hotel search's near slot."""
    after: cw.Tasks = {"t1": ("find_hotel", {"near_attraction": "天安门广场", "hotel_type": "豪华型"})}
    assert cw.changed({}, after) == {("景点", "名称", "天安门广场"), ("酒店", "酒店类型", "豪华型")}


def test_a_list_slots_values_are_triples_each_and_a_turn_counts_those_it_added() -> None:
    """"有棋牌室和叫醒服务的酒店" sets two facilities; "再加一个健身房" then adds the gym alone."""
    hotel = "find_hotel"
    first = cw.changed({}, {"t1": (hotel, {"facility": ["棋牌室", "叫醒服务"]})})
    assert first == {("酒店", "酒店设施", "棋牌室"), ("酒店", "酒店设施", "叫醒服务")}
    before: cw.Tasks = {"t1": (hotel, {"facility": ["棋牌室", "叫醒服务"]})}
    added = cw.changed(before, {"t1": (hotel, {"facility": ["棋牌室", "叫醒服务", "健身房"]})})
    assert added == {("酒店", "酒店设施", "健身房")}
    assert cw.changed(before, {"t1": (hotel, {"facility": ["叫醒服务"]})}) == set()
    assert cw.changed({"t1": (hotel, {"facility": "棋牌室"})}, {"t1": (hotel, {"facility": ["棋牌室", "暖气"]})}) \
        == {("酒店", "酒店设施", "暖气")}


@dataclass
class ScriptedBot:
    """A bot whose every turn is written out: the tasks on its stack and the actions run."""

    script: dict[str, tuple[list[Task], list[ActionRun], str | None]]
    stack: list[Task] = field(default_factory=list)

    def handle(self, session: str, text: str) -> Any:
        if text == "崩":
            raise RuntimeError("a turn that raises")
        self.stack, actions, flow = self.script[text]
        return type("Reply", (), {"actions": actions, "flow": flow})()

    def session(self, session: str) -> Any:
        return type("View", (), {"data": type("Data", (), {"stack": self.stack})()})()


def _turn(index: int, text: str, *acts: list[str]) -> cw.Turn:
    return cw.Turn("d1", index, text, list(acts))


def test_a_search_that_ran_counts_its_values_and_its_domain_stays_for_the_next_question() -> None:
    taxi = Task(id="t9", flow="call_taxi", state="PARAM_COLLECT", slots={"origin": "白塔寺"})
    bot = ScriptedBot({
        "找家有酸菜鱼的馆子": ([], [ActionRun("search_restaurant", {"dish": "酸菜鱼", "rating": None})], None),
        "电话多少？": ([], [], None),
        "从白塔寺打车": ([taxi], [], "call_taxi"),
        "到东门": ([], [ActionRun("call_taxi", {"origin": "白塔寺", "destination": "东门"})], None),
    })
    score = cw.Score()
    turns = [_turn(0, "找家有酸菜鱼的馆子", ["Inform", "餐馆", "推荐菜", "酸菜鱼"]),
             _turn(2, "电话多少？", ["Request", "餐馆", "电话", ""]),
             _turn(4, "从白塔寺打车", ["Inform", "出租", "出发地", "白塔寺"], ["Inform", "出租", "目的地", "东门"]),
             _turn(6, "到东门", ["Request", "出租", "车型", ""]),
             _turn(8, "崩", ["Inform", "景点", "门票", "免费"])]
    cw.replay_dialogue(cw.Replay(bot), turns, score)
    # turn 4 missed 目的地; turn 6 set it unasked for by the acts; turn 8 raised and set nothing
    assert (score.hits, score.predicted, score.gold) == (2, 3, 4)
    assert (score.right, score.counted) == (4, 5)
    assert [f"{m['dialogue']}/{m['turn']}/{m['measure']}" for m in score.misses] == [
        "d1/4/inform", "d1/6/inform", "d1/8/inform", "d1/8/domain"]
    assert score.figures()[cw.F1] == round(100 * 2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4), 2)


def _corpus(folder: Path) -> Path:
    """A made-up CrossWOZ folder: two restaurants, one hotel, three sights, and one dialogue."""
    database = folder / "crosswoz" / "database"
    database.mkdir(parents=True)
    restaurants = [{"名称": "老王面馆", "推荐菜": ["红烧狮子头", "葱油拌面", "Pizza"], "人均消费": 40, "评分": 4.6},
                   {"名称": "湖畔小厨", "推荐菜": ["酸菜鱼", "PIZZA", "汤"], "人均消费": 90, "评分": 4.1}]
    hotels = [{"名称": "云栖客栈", "酒店类型": "舒适型", "酒店设施": ["棋牌室", "叫醒服务"], "价格": 320, "评分": 4.4}]
    sights = [{"名称": "白塔寺", "门票": 0, "游玩时间": "1小时", "评分": 4.5},
              {"名称": "湖心亭", "门票": 10, "游玩时间": "2小时 - 3小时", "评分": 4.2},
              {"名称": "钟鼓楼", "门票": 5, "游玩时间": "0.5小时", "评分": 4.0}]
    places = [{"名称": n, "地铁": "东门站"} for n in ("老王面馆", "湖畔小厨", "云栖客栈", "白塔寺")]
    files: dict[str, list[dict[str, Any]]] = {"restaurant_db.json": restaurants, "hotel_db.json": hotels,
                                                "attraction_db.json": sights, "metro_db.json": places}
    for name, records in files.items():
        (database / name).write_text(json.dumps([[r["名称"], r] for r in records], ensure_ascii=False), "utf-8")
    messages = [
        {"role": "usr", "content": "我想找一家有红烧狮子头的餐馆吃饭", "dialog_act": [
            ["Inform", "餐馆", "推荐菜", "红烧狮子头"], ["Request", "餐馆", "名称", ""]]},
        {"role": "sys", "content": "老王面馆不错。", "dialog_act": [["Inform", "餐馆", "名称", "老王面馆"]]},
        {"role": "usr", "content": "谢谢，再见", "dialog_act": [["General", "bye", "none", "none"]]},
    ]
    with zipfile.ZipFile(folder / "crosswoz" / "val.json.zip", "w") as archive:
        archive.writestr("val.json", json.dumps({"7": {"messages": messages}}, ensure_ascii=False))
    return folder


def test_a_made_up_corpus_is_replayed_through_the_generated_bot(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cw, "build", lambda folder: build_values.build(folder, tmp_path / "bot.yaml"))
    dumped: list[dict[str, Any]] = []
    result = cw.measure(_corpus(tmp_path / "corpora"), dump=dumped.append)
    assert result.corpus == "crosswoz"
    assert result.figures[cw.RECALL] == 100.0 and result.figures[cw.DOMAIN] == 100.0
    assert result.figures["bot load s"] > 0 and result.figures["turn p50 ms"] > 0
    assert len(dumped) == len(result.missed)
    generated = (tmp_path / "bot.yaml").read_text(encoding="utf-8")
    assert "红烧狮子头" in generated and "Pizza" in generated
    assert "PIZZA" not in generated and '"汤"' not in generated     # one spelling per name; no single characters


def test_a_missing_data_folder_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(build_values.MissingData, match="nowhere"):
        cw.measure(tmp_path / "nowhere")
    assert cw.main(["--data", str(tmp_path / "nowhere")]) == 0
    assert "nothing measured" in capsys.readouterr().out


@pytest.mark.parametrize(("text", "ticket"), [("帮我找个不免费的景点", "不免费"), ("想去一个免费的景点", "免费")])
def test_not_free_is_read_whole_and_is_no_free(tmp_path: Path, text: str, ticket: str) -> None:
    from dialogkit import Bot
    from examples.crosswoz import crosswoz_actions

    folder = _corpus(tmp_path / "corpora")
    bot = Bot.from_file(build_values.build(folder, tmp_path / "bot.yaml"), store="memory://")
    crosswoz_actions.use_database(folder)
    runs = bot.handle("s", text).actions
    assert [(run.name, run.inputs.get("ticket")) for run in runs] == [("search_attraction", ticket)]


def test_a_play_time_is_said_in_many_ways_and_each_is_the_databases_own_text() -> None:
    aliases = build_values.duration_aliases("2小时 - 3小时")
    assert {"2-3小时", "2-3个小时", "2到3个小时", "2小时至3小时", "2、3个小时", "两三个小时", "两到三小时"} <= set(aliases)
    assert "2小时" not in aliases and "3小时" not in aliases
    assert set(build_values.duration_aliases("0.5小时")) == {"0.5小时", "0.5个小时", "半小时", "半个小时"}
    assert "0.4个小时" in build_values.duration_aliases("0.4小时 - 0.4小时")      # a range of one time is that time
    assert build_values.duration_aliases("全天") == []


@pytest.mark.parametrize(("text", "duration", "found"), [
    ("想找个能逛两三个小时的景点", "2小时 - 3小时", 1),
    ("有没有2到3个小时能玩完的景点？", "2小时 - 3小时", 1),
    ("推荐一个半个小时就能逛完的景点", "0.5小时", 1),
    ("我想找能玩5-6小时的景点", "5-6小时", 0),           # a time the database does not list: as said
])
def test_a_play_time_said_another_way_is_the_databases_and_the_search_finds_it(
        tmp_path: Path, text: str, duration: str, found: int) -> None:
    from dialogkit import Bot
    from examples.crosswoz import crosswoz_actions

    folder = _corpus(tmp_path / "corpora")
    bot = Bot.from_file(build_values.build(folder, tmp_path / "bot.yaml"), store="memory://")
    crosswoz_actions.use_database(folder)
    runs = bot.handle("s", text).actions
    assert [(run.name, run.inputs.get("duration"), (run.result or {}).get("count")) for run in runs] == [
        ("search_attraction", duration, found)]
